/* startup.c - reset handler and vector table for the firmware example
 * (Cortex-M4F on mps2-an386, Cortex-M55 on mps3-an547). Copies .data from
 * flash, clears .bss, paints the stack (to measure its high-water mark),
 * enables the FPU (and Helium on the M55), runs main(), then leaves through
 * fw_exit(): under qemu (FW_SEMIHOSTING=1, the default) it hands main's
 * status to the host; on a board (FW_SEMIHOSTING=0) it stops there. */
#include <stdint.h>

extern uint32_t _sidata[], _sdata[], _edata[], _sbss[], _ebss[], _sstack[], _estack[];
int main(void);
void initialise_monitor_handles(void) __attribute__((weak));   /* newlib's semihosting stdio (tests only) */
void fw_exit(int status);
void fw_fault(void);
void SysTick_Handler(void);
#ifndef FW_SEMIHOSTING
#define FW_SEMIHOSTING 1
#endif

#define FW_STACK_PAINT 0xA5A5A5A5u

void Reset_Handler(void);
void Reset_Handler(void) {
    uint32_t *p, *top = (uint32_t *)((uintptr_t)_estack - 256);   /* (the top 256 bytes are in use) */
    for (p = _sdata; p < _edata; p++) *p = _sidata[p - _sdata];
    for (p = _sbss; p < _ebss; p++) *p = 0;
    for (p = _sstack; p < top; p++) *p = FW_STACK_PAINT;
#if defined(__ARM_ARCH_8M_MAIN__) || defined(__ARM_ARCH_8_1M_MAIN__)
    __asm volatile("msr msplim, %0" :: "r"(_sstack));             /* ARMv8-M (M55): a stack overflow faults instead of writing into .bss */
#endif
    *(volatile uint32_t *)0xE000ED88 |= 0xFu << 20;                /* CPACR: CP10, CP11 full access */
    __asm volatile("dsb\n\tisb" ::: "memory");
    if (initialise_monitor_handles) initialise_monitor_handles();
    fw_exit(main());
}
/* bytes of stack ever used: the painted words no longer intact */
uint32_t fw_stack_used(void);
uint32_t fw_stack_used(void) {
    const uint32_t *p = _sstack;
    while (p < _estack && *p == FW_STACK_PAINT) p++;
    return (uint32_t)((const char *)_estack - (const char *)p);
}
void fw_exit(int status) {
#if FW_SEMIHOSTING   /* SYS_EXIT_EXTENDED (0x20): {ADP_Stopped_ApplicationExit, status} */
    volatile uint32_t blk[2];
    register uint32_t r0 __asm("r0") = 0x20;
    register uint32_t r1 __asm("r1") = (uint32_t)(uintptr_t)blk;
    blk[0] = 0x20026; blk[1] = (uint32_t)status;
    __asm volatile("bkpt 0xAB" : "+r"(r0) : "r"(r1) : "memory");
#else
    (void)status;
#endif
    for (;;) {}
}
__attribute__((weak)) void fw_fault(void) { fw_exit(3); }   /* (main.c reports it on the UART first) */
__attribute__((weak)) void SysTick_Handler(void) {}
static void fw_default(void) { fw_fault(); }

/* the first 16 entries (the core's exceptions); no device interrupts are used */
__attribute__((section(".vectors"), used)) void (*const fw_vectors[16])(void) = {
    (void (*)(void))(uintptr_t)_estack, Reset_Handler,
    fw_default, fw_default, fw_default, fw_default, fw_default,   /* NMI, HardFault, MemManage, BusFault, UsageFault */
    fw_default, 0, 0, 0, fw_default, fw_default, 0, fw_default,   /* SecureFault, -, SVCall, DebugMon, -, PendSV */
    SysTick_Handler,
};
