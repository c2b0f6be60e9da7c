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
	/* Except the signals of a fault, which the kernel delivers to the faulting
	 * thread whatever its mask, killing the process if they are blocked: a
	 * program's handler for them (SIGBUS from a mapped input that shrank,
	 * osh_model_load_mapped) must run in our threads too. */
	sigdelset(&all, SIGBUS);
	sigdelset(&all, SIGSEGV);
	sigdelset(&all, SIGFPE);
	sigdelset(&all, SIGILL);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	int e = pthread_create(t, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return e;
}

int quiet_worker_start(quiet_worker *w, void *(*fn)(void *), void *arg)
{
	w->stop = false;
	int e = pthread_mutex_init(&w->lock, NULL);
	if (e)
		return e;
	if ((e = pthread_cond_init(&w->wake, NULL)) != 0) {
		pthread_mutex_destroy(&w->lock);
		return e;
	}
	if ((e = quiet_thread_start(&w->thread, fn, arg)) != 0) {
		pthread_cond_destroy(&w->wake);
		pthread_mutex_destroy(&w->lock);
	}
	return e;
}

void quiet_worker_stop(quiet_worker *w)
{
	pthread_mutex_lock(&w->lock);
	w->stop = true;
	pthread_cond_broadcast(&w->wake);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	pthread_cond_destroy(&w->wake);
	pthread_mutex_destroy(&w->lock);
}
