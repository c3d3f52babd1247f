/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/string.h>. */
#ifndef _KCOMPAT_LINUX_STRING_H
#define _KCOMPAT_LINUX_STRING_H

#include <linux/types.h>

/* The C library's string functions stand in for lib/string.c. */
void *memcpy(void *dest, const void *src, size_t n);
void *memset(void *s, int c, size_t n);
void *memmove(void *dest, const void *src, size_t n);
int memcmp(const void *s1, const void *s2, size_t n);
size_t strlen(const char *s);
size_t strnlen(const char *s, size_t maxlen);
int strcmp(const char *s1, const char *s2);
int strncmp(const char *s1, const char *s2, size_t n);
char *strncpy(char *dest, const char *src, size_t n);
size_t strscpy(char *dest, const char *src, size_t count);
/* Removed in 6.8; 5.10's rdma_vt.h still calls it (not reached). */
size_t strlcpy(char *dest, const char *src, size_t size);

/*
 * The x86-64 kernel is built without -ffreestanding, so the compiler
 * expands these inline when the size is small and known; the world is
 * built freestanding (-nostdinc), so they are named as builtins here to
 * keep that.  Calls of unknown size still reach the C library.
 */
#define memcpy(d, s, n)		__builtin_memcpy(d, s, n)
#define memset(s, c, n)		__builtin_memset(s, c, n)
#define memcmp(a, b, n)		__builtin_memcmp(a, b, n)

void *memchr_inv(const void *s, int c, size_t n);
#define memzero_explicit(s, n)	memset(s, 0, n)

#endif
