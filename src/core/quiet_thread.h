/* quiet_thread.h: starting one of the library's own threads with every signal
 * blocked in it. */
#ifndef OSH_CORE_QUIET_THREAD_H
#define OSH_CORE_QUIET_THREAD_H

#include <pthread.h>
#include <stdbool.h>

/* pthread_create(t, NULL, fn, arg), the new thread blocking every signal but those
 * of a fault (SIGBUS, SIGSEGV, SIGFPE, SIGILL, the faulting thread's): signals go
 * to the threads they went to before it existed, as a handler the application
 * installed may count on. Returns pthread_create's result. */
int quiet_thread_start(pthread_t *t, void *(*fn)(void *), void *arg);

/* A thread of the library's that sleeps on `wake` until its owner gives it work or
 * asks it to stop: the prefault, the page release, the flush-behind writer. Its
 * state beside these is the owner's, under `lock`. */
typedef struct quiet_worker {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	bool stop; /* under lock */
} quiet_worker;

/* Initialises w's lock and condition and starts fn(arg) as a quiet thread. Returns
 * 0, or an error with nothing left to undo. */
int quiet_worker_start(quiet_worker *w, void *(*fn)(void *), void *arg);
/* Sets stop, wakes the thread, waits for it to return, and destroys the lock and the
 * condition: what is left to do before it returns is the thread's to decide. */
void quiet_worker_stop(quiet_worker *w);

#endif
