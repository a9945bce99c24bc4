// glibc's malloc tuning (mallopt), which the Glibc module does not carry.
#include <malloc.h>
