/* model.S - the GGUF file linked into flash as a const array (fw_model ..
 * fw_model_end), 64-byte aligned so that its tensor data (32-byte aligned
 * in the file) can be used in place. FW_MODEL_PATH comes from the build. */
    .section .model, "a"
    .balign 64
    .global fw_model
    .global fw_model_end
fw_model:
    .incbin FW_MODEL_PATH
fw_model_end:
