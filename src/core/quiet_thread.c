/* quiet_thread.c: see quiet_thread.h. */
#define _DEFAULT_SOURCE /* pthread_sigmask, sigset_t */
#include "core/quiet_thread.h"

#include <signal.h>

int quiet_thread_start(pthread_t *t, void *(*fn)(void *), void *arg)
{
	/* A new thread inherits the creator's mask: block everything around its
	 * creation, then give the creator its own mask back. */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	int e = pthread_create(t, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return e;
}
