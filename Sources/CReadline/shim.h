#ifndef PARLEY_CREADLINE_SHIM_H
#define PARLEY_CREADLINE_SHIM_H
#include <stdio.h>
#include <readline/readline.h>
#include <readline/history.h>
#endif
