/* Where a command's output goes: standard output, or -o FILE written
 * atomically (a temporary file beside FILE, renamed when the command
 * succeeds, removed when it fails; a character device or a FIFO written
 * in place, a symlink followed, anything else refused: <gpufeed/outfile.h>);
 * and the real reason when writing it failed (a full disk, a closed pipe),
 * not a stale gf_last_error(). */
#ifndef GF_CLI_OUTPUT_H
#define GF_CLI_OUTPUT_H

#include <stdbool.h>

struct gf_cli;

/* main(), first: SIGPIPE ignored (a closed pipe is an EPIPE write error,
 * so commands clean up and exit 3), and stdout replaced by a stream that
 * keeps the errno of a failed write.  fileno(stdout) is then -1: use
 * STDOUT_FILENO. */
void gf_out_init(void);
/* After parsing: with -o FILE, standard output goes to FILE.tmp-XXXXXX
 * (or to FILE itself, a character device or a FIFO).  0, or the exit code
 * after a message (FILE's directory missing, FILE a directory, a block
 * device, a symlink to nothing). */
int gf_out_open(struct gf_cli *cli);
/* True when writing the output failed; *err is the write's errno and *what
 * names the output ("standard output" or FILE). */
bool gf_out_failed(int *err, const char **what);
/* main(), last: flushes the output; with -o, renames the temporary file to
 * FILE when rc is a success (0 or 1) and the output was written, else
 * removes it.  Returns rc, or 3 when the output could not be written
 * (said on stderr unless the command said so already). */
int gf_out_finish(int rc);
/* The command messages name ("gpufeed topo: ..."); gf_cli_init sets it. */
void gf_out_set_command(const char *cmd);

#endif
