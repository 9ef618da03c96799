/* Shell completion scripts written from the command tables (opt.h), so a
 * new command or option completes as soon as it is in its table: the
 * commands and subcommands, every documented option, the words an option
 * takes (struct gf_opt's values), files where a FILE or DIR is asked, and
 * GPUs (index or UUID) from the machine, or from the recording --root
 * names, at completion time ('gpufeed completion --gpus'). */
#ifndef GF_CLI_COMPLETION_H
#define GF_CLI_COMPLETION_H

#include <stdio.h>

struct gf_opt;

/* What an option's argument completes to: its values, else one found from
 * the argument's name (FILE, PATH: a file; DIR: a directory; G: a GPU; a
 * LIST of --gpu/--gpus: GPUs), else NULL (free text). */
const char *gf_completion_values(const struct gf_opt *o);

void gf_completion_bash(FILE *f);
void gf_completion_zsh(FILE *f);

#endif
