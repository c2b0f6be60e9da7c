/* quiet_thread.h: starting one of the library's own threads with every signal
 * blocked in it. */
#ifndef OSH_CORE_QUIET_THREAD_H
#define OSH_CORE_QUIET_THREAD_H

#include <pthread.h>

/* pthread_create(t, NULL, fn, arg), the new thread blocking every signal but those
 * of a fault (SIGBUS, SIGSEGV, SIGFPE, SIGILL, the faulting thread's): signals go
 * to the threads they went to before it existed, as a handler the application
 * installed may count on. Returns pthread_create's result. */
int quiet_thread_start(pthread_t *t, void *(*fn)(void *), void *arg);

#endif
