/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kcompat: stands in for <linux/cleanup.h>: scope-based cleanup, as the
 * kernel builds it on gcc's cleanup attribute.  A class is a type with a
 * constructor and a destructor run when its variable leaves scope; a lock
 * guard is a class whose constructor takes the lock and whose destructor
 * releases it, through the same stand-ins (and so the same lockdep
 * records) as the explicit calls.
 */
#ifndef _KCOMPAT_LINUX_CLEANUP_H
#define _KCOMPAT_LINUX_CLEANUP_H

#include <linux/compiler_types.h>
#include <linux/stddef.h>

/* __free(name): run DEFINE_FREE(name)'s expression on the variable, as _T. */
#define DEFINE_FREE(_name, _type, _free)				\
	static inline void __free_##_name(void *__p)			\
	{								\
		_type _T = *(_type *)__p;				\
		_free;							\
	}
#define __free(_name)	__attribute__((__cleanup__(__free_##_name)))

/* Takes the value out of a __free variable, leaving NULL to free. */
#define no_free_ptr(p)	({ __auto_type __kc_v = (p); (p) = NULL; __kc_v; })
#define return_ptr(p)	return no_free_ptr(p)
#define retain_and_null_ptr(p)	((void)no_free_ptr(p))

#define DEFINE_CLASS(_name, _type, _exit, _init, _init_args...)	\
	typedef _type class_##_name##_t;				\
	static inline void class_##_name##_destructor(_type *__p)	\
	{								\
		_type _T = *__p;					\
		_exit;							\
	}								\
	static inline _type class_##_name##_constructor(_init_args)	\
	{								\
		_type __v = _init;					\
		return __v;						\
	}

#define CLASS(_name, var)						\
	class_##_name##_t var						\
	__attribute__((__cleanup__(class_##_name##_destructor))) =	\
		class_##_name##_constructor

/* A guard over a pointer type: NULL holds nothing. */
#define DEFINE_GUARD(_name, _type, _lock, _unlock)			\
	DEFINE_CLASS(_name, _type, if (_T) { _unlock; },		\
		     ({ _lock; _T; }), _type _T)

/* What a lock guard does at the end of its scope: unlock, if it holds. */
#define __KC_LOCK_GUARD_DESTRUCTOR(_name, _unlock)			\
	static inline void						\
	class_##_name##_destructor(class_##_name##_t *_T)		\
	{								\
		if (_T->lock) {						\
			_unlock;					\
		}							\
	}

/* A guard over a lock of type _type, with state of its own (the flags). */
#define DEFINE_LOCK_GUARD_1(_name, _type, _lock, _unlock, ...)	\
	typedef struct {						\
		_type *lock;						\
		__VA_ARGS__;						\
	} class_##_name##_t;						\
	__KC_LOCK_GUARD_DESTRUCTOR(_name, _unlock)			\
	static inline class_##_name##_t					\
	class_##_name##_constructor(_type *__l)				\
	{								\
		class_##_name##_t __g = { .lock = __l }, *_T = &__g;	\
		_lock;							\
		return __g;						\
	}

/* A guard over no object (an RCU read-side section). */
#define DEFINE_LOCK_GUARD_0(_name, _lock, _unlock, ...)		\
	typedef struct {						\
		void *lock;						\
		__VA_ARGS__;						\
	} class_##_name##_t;						\
	__KC_LOCK_GUARD_DESTRUCTOR(_name, _unlock)			\
	static inline class_##_name##_t class_##_name##_constructor(void) \
	{								\
		class_##_name##_t __g = { .lock = (void *)1 };		\
		_lock;							\
		return __g;						\
	}

#define guard(_name)	CLASS(_name, __UNIQUE_ID(guard))

/* The body runs once, holding the guard. */
#define scoped_guard(_name, args...)					\
	for (CLASS(_name, __kc_scope)(args), *__kc_done = NULL;	\
	     !__kc_done; __kc_done = (void *)1)

#endif
