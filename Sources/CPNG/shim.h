#ifndef PARLEY_CPNG_SHIM_H
#define PARLEY_CPNG_SHIM_H

#include <png.h>
#include <stdlib.h>
#include <string.h>

/* Decodes a PNG held in memory to 8-bit RGBA with libpng's simplified API, which
   reports errors by its return value instead of longjmp. On success *pixels is
   malloc'd (free it) and 1 is returned; on failure 0, with the reason in message. */
static inline int parley_png_decode(const void *data, size_t size, unsigned long max_pixels,
                                    unsigned char **pixels, unsigned *width, unsigned *height,
                                    char *message, size_t message_size) {
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    *pixels = NULL;
    if (!png_image_begin_read_from_memory(&image, data, size)) {
        snprintf(message, message_size, "%s", image.message);
        return 0;
    }
    if ((unsigned long)image.width * image.height > max_pixels) {
        png_image_free(&image);
        snprintf(message, message_size, "too many pixels to preview");
        return 0;
    }
    image.format = PNG_FORMAT_RGBA;
    unsigned char *buffer = malloc(PNG_IMAGE_SIZE(image));
    if (buffer == NULL) {
        png_image_free(&image);
        snprintf(message, message_size, "out of memory");
        return 0;
    }
    if (!png_image_finish_read(&image, NULL, buffer, 0, NULL)) {
        free(buffer);
        snprintf(message, message_size, "%s", image.message);
        return 0;
    }
    *pixels = buffer;
    *width = image.width;
    *height = image.height;
    return 1;
}

#endif
