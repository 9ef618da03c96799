/* A forked child whose output comes back to the test: shared by
 * test_io_util.h (t_in_child) and test_log.c (its GPUFEED_LOG child). */
#ifndef GF_TEST_T_CHILD_H
#define GF_TEST_T_CHILD_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"

/* Forks; the child runs fn(arg, wfd), wfd the write end of a pipe (it may
 * dup2 it onto stderr), and exits with what fn returns.  Here, what came
 * down the pipe lands in out (NUL-terminated, cut to size) and the child's
 * wait status is returned. */
static inline int t_fork_collect(int (*fn)(void *arg, int wfd), void *arg, char *out, size_t size)
{
	int pfd[2], status = 0;
	ssize_t n;
	size_t got = 0;
	pid_t pid;

	assert_int_equal(pipe(pfd), 0);
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(pfd[0]);
		_exit(fn(arg, pfd[1]));
	}
	close(pfd[1]);
	while ((n = read(pfd[0], out + got, size - 1 - got)) > 0)
		got += (size_t)n;
	close(pfd[0]);
	out[got] = '\0';
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return status;
}

#endif
