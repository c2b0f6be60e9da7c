/* pristine.h: a child of a test starts as a process started by a shell would. */
#ifndef OSH_TEST_PRISTINE_H
#define OSH_TEST_PRISTINE_H

#include <signal.h>
#include <sys/resource.h>

/* The dispositions and mask a process starts with, whatever the test runner set, and
 * no core file from the signals whose default dumps one. */
static inline void pristine_signals(void)
{
	for (int s = 1; s < NSIG; s++)
		if (s != SIGKILL && s != SIGSTOP)
			signal(s, SIG_DFL);
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	struct rlimit no_core = {0, 0};
	setrlimit(RLIMIT_CORE, &no_core);
}

#endif
