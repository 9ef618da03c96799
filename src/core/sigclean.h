/* Directories removed when SIGINT, SIGTERM or SIGHUP ends the process: the
 * unpacked copy of a --root FILE.tar.gz, which would otherwise stay in
 * /dev/shm after a Ctrl-C (kill -9 leaves it to the next unpack). */
#ifndef GF_CORE_SIGCLEAN_H
#define GF_CORE_SIGCLEAN_H

/* While one directory or more is registered, a handler stands for each of
 * the three signals that the process does not ignore.  It removes the
 * directories (gf_rmtree_signal_safe) only when the signal is about to end
 * the process: at once when the disposition it stands in for is the
 * default, else after calling the handler it stands in for, when that one
 * has reset the signal to the default and raised it again (as the CLI's
 * `-o FILE` cleanup does).  A handler that only sets a flag keeps the
 * directory for the normal path (gf_fs_fini) to remove.  A forked child
 * never removes its parent's.  A handler installed later replaces this
 * one; gf_sigclean_drop of the last directory puts back what it stood in
 * for.
 *
 * mkdtemp(tmpl), and the directory made registered, with the three signals
 * held off in between so that none ends the process with the directory
 * made and not yet registered.  0 or -errno (mkdtemp's); *slot is the
 * registration (>= 0), or -1 when 16 are registered (then only the normal
 * path removes it). */
int gf_sigclean_mkdtemp(char *tmpl, int *slot);
void gf_sigclean_drop(int slot);

#endif
