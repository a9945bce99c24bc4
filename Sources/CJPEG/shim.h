#ifndef PARLEY_CJPEG_SHIM_H
#define PARLEY_CJPEG_SHIM_H

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>

/* libjpeg reports errors through error_exit, which by default ends the process.
   These wrappers jump back out of it with setjmp/longjmp (which Swift cannot do) and
   return 0 with the reason in message instead. */
struct parley_jpeg_error {
    struct jpeg_error_mgr manager;
    jmp_buf jump;
    char *message;
    size_t message_size;
};

static void parley_jpeg_error_exit(j_common_ptr info) {
    struct parley_jpeg_error *error = (struct parley_jpeg_error *)info->err;
    char text[JMSG_LENGTH_MAX];
    (*info->err->format_message)(info, text);
    snprintf(error->message, error->message_size, "%s", text);
    longjmp(error->jump, 1);
}

static void parley_jpeg_quiet(j_common_ptr info, int level) { (void)info; (void)level; }

/* Decodes a JPEG held in memory to 8-bit RGB, scaled down while decoding by the
   largest of 1/2, 1/4, 1/8 that keeps the smaller side at least wanted_side pixels.
   On success *pixels is malloc'd (free it) and 1 is returned. */
static inline int parley_jpeg_decode(const unsigned char *data, unsigned long size, unsigned wanted_side,
                                     unsigned char **pixels, unsigned *width, unsigned *height,
                                     char *message, size_t message_size) {
    struct jpeg_decompress_struct info;
    struct parley_jpeg_error error;
    unsigned char *volatile buffer = NULL;
    *pixels = NULL;
    info.err = jpeg_std_error(&error.manager);
    error.manager.error_exit = parley_jpeg_error_exit;
    error.manager.emit_message = parley_jpeg_quiet;
    error.message = message;
    error.message_size = message_size;
    if (setjmp(error.jump)) {
        jpeg_destroy_decompress(&info);
        free(buffer);
        return 0;
    }
    jpeg_create_decompress(&info);
    jpeg_mem_src(&info, data, size);
    jpeg_read_header(&info, TRUE);
    unsigned side = info.image_width < info.image_height ? info.image_width : info.image_height;
    unsigned scale = 1;
    while (scale < 8 && side / (scale * 2) >= wanted_side) scale *= 2;
    info.out_color_space = JCS_RGB;
    info.scale_num = 1;
    info.scale_denom = scale;
    jpeg_start_decompress(&info);
    size_t stride = (size_t)info.output_width * 3;
    buffer = malloc(stride * info.output_height);
    if (buffer == NULL) {
        snprintf(message, message_size, "out of memory");
        jpeg_destroy_decompress(&info);
        return 0;
    }
    while (info.output_scanline < info.output_height) {
        JSAMPROW row = buffer + stride * info.output_scanline;
        jpeg_read_scanlines(&info, &row, 1);
    }
    jpeg_finish_decompress(&info);
    *width = info.output_width;
    *height = info.output_height;
    jpeg_destroy_decompress(&info);
    *pixels = buffer;
    return 1;
}

/* Encodes 8-bit RGB pixels as a baseline JPEG in memory (for tests and tools).
   On success *output is malloc'd (free it). */
static inline int parley_jpeg_encode(const unsigned char *pixels, unsigned width, unsigned height, int quality,
                                     unsigned char **output, unsigned long *output_size,
                                     char *message, size_t message_size) {
    struct jpeg_compress_struct info;
    struct parley_jpeg_error error;
    *output = NULL;
    *output_size = 0;
    info.err = jpeg_std_error(&error.manager);
    error.manager.error_exit = parley_jpeg_error_exit;
    error.message = message;
    error.message_size = message_size;
    if (setjmp(error.jump)) {
        jpeg_destroy_compress(&info);
        return 0;
    }
    jpeg_create_compress(&info);
    jpeg_mem_dest(&info, output, output_size);
    info.image_width = width;
    info.image_height = height;
    info.input_components = 3;
    info.in_color_space = JCS_RGB;
    jpeg_set_defaults(&info);
    jpeg_set_quality(&info, quality, TRUE);
    jpeg_start_compress(&info, TRUE);
    while (info.next_scanline < info.image_height) {
        JSAMPROW row = (JSAMPROW)(pixels + (size_t)info.next_scanline * width * 3);
        jpeg_write_scanlines(&info, &row, 1);
    }
    jpeg_finish_compress(&info);
    jpeg_destroy_compress(&info);
    return 1;
}

#endif
