/* Writing the bash and zsh completion scripts from the command tables
 * (completion.h).  Each script is a fixed function over tables written
 * here: the commands, each command's options, which take a value and what
 * it completes to, and what its operands are. */
#include <string.h>

#include "cli.h"
#include "completion.h"
#include "help_topic.h"

/* Operand kinds of a command's usage line ("[OPTIONS] DIR|FILE.tar.gz"):
 * any of these words asks for a path. */
static const char *const path_words[] = { "FILE", "DIR", "PATH", "DATASET", "INPUT", "OUTDIR", "MANIFEST", "DUMP",
					  "PREFIX", NULL };

const char *gf_completion_values(const struct gf_opt *o)
{
	if (!o->argh)
		return NULL;
	if (o->values)
		return o->values;
	/* --root takes a directory or a .tar.gz. */
	if (!strcmp(o->long_name, "root") || !strcmp(o->argh, "FILE") || !strcmp(o->argh, "PATH"))
		return "<file>";
	if (!strcmp(o->argh, "DIR"))
		return "<dir>";
	if (!strcmp(o->argh, "G"))
		return GF_VALUES_GPU;
	if (!strcmp(o->argh, "LIST") && (!strcmp(o->long_name, "gpu") || !strcmp(o->long_name, "gpus")))
		return GF_VALUES_GPUS;
	return NULL;
}

static const char *operand_values(const struct gf_cmd *cmd)
{
	if (!cmd->args)
		return NULL;
	for (const char *const *w = path_words; *w; w++)
		if (strstr(cmd->args, *w))
			return "<file>";
	return NULL;
}

/* Every command, then each subcommand after its parent. */
static void each_cmd(void (*fn)(const struct gf_cmd *cmd, void *arg), void *arg)
{
	for (const struct gf_cmd *const *c = gf_commands; *c; c++) {
		fn(*c, arg);
		for (const struct gf_cmd *const *s = (*c)->subs; s && *s; s++)
			fn(*s, arg);
	}
}

/* The word after the last space: "io" of "bench io". */
static const char *last_word(const char *name)
{
	const char *sp = strrchr(name, ' ');

	return sp ? sp + 1 : name;
}

/* s inside a single-quoted shell word: ' as '\'' */
static void put_in_quotes(FILE *f, const char *s, size_t len)
{
	for (size_t i = 0; s && i < len && s[i]; i++) {
		if (s[i] == '\'')
			fputs("'\\''", f);
		else
			fputc(s[i], f);
	}
}

static void put_quoted(FILE *f, const char *s, size_t len)
{
	fputc('\'', f);
	put_in_quotes(f, s, len);
	fputc('\'', f);
}

static size_t first_line_len(const char *s)
{
	return s ? strcspn(s, "\n") : 0;
}

/* ---- the tables: associative arrays, written as bash's [KEY]=VALUE or
 * zsh's KEY VALUE pairs ---- */

struct table_out {
	FILE *f;
	bool zsh;
};

/* The key of one entry, the value to follow in single quotes. */
static void put_key(const struct table_out *out, const char *key, const char *more)
{
	if (out->zsh)
		fprintf(out->f, "\t'%s%s' ", key, more ? more : "");
	else
		fprintf(out->f, "\t['%s%s']=", key, more ? more : "");
}

/* The command's options, long and short: the documented ones, or (takes)
 * every one that takes a value, hidden ones too (their value is skipped
 * when finding the command). */
static void put_option_names(const struct table_out *out, const struct gf_cmd *cmd, bool takes)
{
	if (!cmd->opts)
		return;
	put_key(out, cmd->name, NULL);
	fputc('\'', out->f);
	for (const struct gf_opt *e = cmd->opts; e->type != GF_OPT_END; e++) {
		struct gf_opt o = gf_opt_resolve(e);

		if (o.type == GF_OPT_END || (takes ? !o.argh : (o.flags & GF_OPT_HIDDEN) != 0))
			continue;
		fprintf(out->f, " --%s", o.long_name);
		if (o.short_name)
			fprintf(out->f, " -%c", o.short_name);
	}
	fputs(" '\n", out->f);
}

static void data_opts(const struct gf_cmd *cmd, void *arg)
{
	put_option_names(arg, cmd, false);
}

static void data_args(const struct gf_cmd *cmd, void *arg)
{
	put_option_names(arg, cmd, true);
}

static void data_values(const struct gf_cmd *cmd, void *arg)
{
	const struct table_out *out = arg;
	FILE *f = out->f;

	for (const struct gf_opt *e = cmd->opts; e && e->type != GF_OPT_END; e++) {
		struct gf_opt o = gf_opt_resolve(e);
		const char *v = o.type == GF_OPT_END ? NULL : gf_completion_values(&o);
		char words[512], opt[80];

		if (!v)
			continue;
		snprintf(words, sizeof(words), "%s", v);
		for (char *p = words; *p; p++)
			if (*p == '|')
				*p = ' ';
		snprintf(opt, sizeof(opt), " --%s", o.long_name);
		put_key(out, cmd->name, opt);
		fprintf(f, "'%s'\n", words);
		if (o.short_name) {
			snprintf(opt, sizeof(opt), " -%c", o.short_name);
			put_key(out, cmd->name, opt);
			fprintf(f, "'%s'\n", words);
		}
	}
}

static void data_operands(const struct gf_cmd *cmd, void *arg)
{
	const struct table_out *out = arg;
	FILE *f = out->f;
	const char *v = operand_values(cmd);

	if (v && !cmd->subs)
	{
		put_key(out, cmd->name, NULL);
		fprintf(f, "'%s'\n", v);
	}
}

/* Each option's first line of help, for zsh's descriptions:
 * "--root:read a recording ...", one a line. */
static void data_descriptions(const struct gf_cmd *cmd, void *arg)
{
	const struct table_out *out = arg;
	FILE *f = out->f;
	bool first = true;

	if (!cmd->opts)
		return;
	put_key(out, cmd->name, NULL);
	fputc('\'', f);
	for (const struct gf_opt *e = cmd->opts; e->type != GF_OPT_END; e++) {
		struct gf_opt o = gf_opt_resolve(e);

		if (o.type == GF_OPT_END || (o.flags & GF_OPT_HIDDEN))
			continue;
		fprintf(f, "%s--%s:", first ? "" : "\n", o.long_name);
		put_in_quotes(f, o.help, first_line_len(o.help));
		first = false;
	}
	fputs("'\n", f);
}

static void data_command_names(const struct gf_cmd *cmd, void *arg)
{
	const struct table_out *out = arg;
	FILE *f = out->f;

	if (!strchr(cmd->name, ' '))
		fprintf(f, " %s", cmd->name);
}

static void data_command_descriptions(const struct gf_cmd *cmd, void *arg)
{
	const struct table_out *out = arg;
	FILE *f = out->f;

	put_key(out, cmd->name, NULL);
	put_quoted(f, cmd->summary, first_line_len(cmd->summary));
	fputc('\n', f);
}

static void data_subs(const struct table_out *out)
{
	FILE *f = out->f;

	for (const struct gf_cmd *const *c = gf_commands; *c; c++) {
		if (!(*c)->subs)
			continue;
		put_key(out, (*c)->name, NULL);
		fputc('\'', f);
		for (const struct gf_cmd *const *s = (*c)->subs; *s; s++)
			fprintf(f, "%s%s", s == (*c)->subs ? "" : " ", last_word((*s)->name));
		fputs("'\n", f);
	}
}

/* The tables, as NAME=(...) assignments after the shell's declaration
 * (bash: declare -gA, zsh: typeset -gA). */
static void write_tables(FILE *f, bool zsh)
{
	const struct table_out out = { f, zsh };
	const char *declare = zsh ? "typeset -gA" : "declare -gA";

	fprintf(f, "_gpufeed_commands='");
	each_cmd(data_command_names, (void *)&out);
	fprintf(f, " help'\n_gpufeed_topics='");
	for (int i = 0; i < gf_doc_npages; i++)
		fprintf(f, "%s%s", i ? " " : "", gf_doc_pages[i].topic);
	fprintf(f, "'\n%s _gpufeed_subs\n_gpufeed_subs=(\n", declare);
	data_subs(&out);
	fprintf(f, ")\n%s _gpufeed_opts\n_gpufeed_opts=(\n", declare);
	each_cmd(data_opts, (void *)&out);
	fprintf(f, ")\n# the options that take a value\n%s _gpufeed_args\n_gpufeed_args=(\n", declare);
	each_cmd(data_args, (void *)&out);
	fprintf(f, ")\n# what a value completes to: words, or <file>, <dir>, <gpu>, <gpus>\n"
		   "%s _gpufeed_values\n_gpufeed_values=(\n", declare);
	each_cmd(data_values, (void *)&out);
	fprintf(f, ")\n%s _gpufeed_operands\n_gpufeed_operands=(\n", declare);
	each_cmd(data_operands, (void *)&out);
	put_key(&out, "completion", NULL);
	fputs("'bash zsh'\n)\n", f);
	if (!zsh)
		return;
	fprintf(f, "%s _gpufeed_optdesc\n_gpufeed_optdesc=(\n", declare);
	each_cmd(data_descriptions, (void *)&out);
	fprintf(f, ")\n%s _gpufeed_cmddesc\n_gpufeed_cmddesc=(\n", declare);
	each_cmd(data_command_descriptions, (void *)&out);
	put_key(&out, "help", NULL);
	fputs("'a command'\\''s help, or a page of the docs'\n)\n", f);
}

/* One word before the cursor, in either shell: --root's value noted, an
 * option's value skipped, else the word is the command, its subcommand or
 * help's command.  $last: the index of the word being completed. */
#define SCAN_WORD \
	"\t\tcase $w in\n" \
	"\t\t--root=*) root=${w#--root=} ;;\n" \
	"\t\t--root | -r) ((i + 1 < last)) && root=${words[i+1]} ;;\n" \
	"\t\tesac\n" \
	"\t\tif [[ $w == -* ]]; then\n" \
	"\t\t\t[[ $w != *=* && ${_gpufeed_args[$key]-} == *\" $w \"* ]] && ((i++))\n" \
	"\t\t\tcontinue\n" \
	"\t\tfi\n" \
	"\t\tif [[ -z $key ]]; then key=$w\n" \
	"\t\telif [[ $key != *' '* && -n ${_gpufeed_subs[$key]-} ]]; then key=\"$key $w\"\n" \
	"\t\telif [[ $key == help ]]; then key=\"help $w\"\n" \
	"\t\tfi\n"

static const char bash_body[] =
	"# GPUs as 'gpufeed completion --gpus' lists them (INDEX UUID NAME a line),\n"
	"# of the recording --root names when one was typed.\n"
	"_gpufeed_gpus()\n"
	"{\n"
	"\tlocal self=$1 root=$2 cur=$3 pre= line\n"
	"\tlocal -a words=()\n"
	"\tif [[ $4 == list && $cur == *,* ]]; then pre=${cur%,*},; cur=${cur##*,}; fi\n"
	"\twhile read -r line; do\n"
	"\t\twords+=(\"${line%%\t*}\")\n"
	"\t\tline=${line#*\t}\n"
	"\t\t[[ -n ${line%%\t*} ]] && words+=(\"${line%%\t*}\")\n"
	"\tdone < <(\"$self\" completion --gpus ${root:+--root \"$root\"} 2>/dev/null)\n"
	"\t# Matched here, not by compgen -W, which would expand a recording's $(...).\n"
	"\tCOMPREPLY=()\n"
	"\tfor line in \"${words[@]}\"; do\n"
	"\t\t[[ $line == \"$cur\"* ]] && COMPREPLY+=(\"$pre$line\")\n"
	"\tdone\n"
	"}\n"
	"\n"
	"# COMPREPLY for an option's value: spec (words or <kind>), cur its prefix.\n"
	"_gpufeed_value()\n"
	"{\n"
	"\tlocal self=$1 root=$2 spec=$3 cur=$4\n"
	"\tcase $spec in\n"
	"\t'<file>') compopt -o filenames 2>/dev/null; mapfile -t COMPREPLY < <(compgen -f -- \"$cur\") ;;\n"
	"\t'<dir>') compopt -o filenames 2>/dev/null; mapfile -t COMPREPLY < <(compgen -d -- \"$cur\") ;;\n"
	"\t'<gpu>') _gpufeed_gpus \"$self\" \"$root\" \"$cur\" one ;;\n"
	"\t'<gpus>') _gpufeed_gpus \"$self\" \"$root\" \"$cur\" list ;;\n"
	"\t'') COMPREPLY=() ;;\n"
	"\t*) COMPREPLY=($(compgen -W \"$spec\" -- \"$cur\")) ;;\n"
	"\tesac\n"
	"}\n"
	"\n"
	"_gpufeed()\n"
	"{\n"
	"\tlocal self=${COMP_WORDS[0]} key= root= cur prev= w i n=0 last spec pre=\n"
	"\tlocal -a words=()\n"
	"\tCOMPREPLY=()\n"
	"\t# '--opt=value': bash splits it at '=' (COMP_WORDBREAKS); joined again here.\n"
	"\tfor ((i = 0; i <= COMP_CWORD; i++)); do\n"
	"\t\tw=${COMP_WORDS[i]}\n"
	"\t\tif ((n > 1)) && [[ $w == = && ${words[n-1]} == -* ]]; then words[n-1]+==\n"
	"\t\telif ((n > 1)) && [[ ${words[n-1]} == -*= ]]; then words[n-1]+=$w\n"
	"\t\telse words[n++]=$w; fi\n"
	"\tdone\n"
	"\tcur=${words[n-1]}\n"
	"\t((n > 2)) && prev=${words[n-2]}\n"
	"\tlast=$((n - 1))\n"
	"\t# The command (and subcommand): the first words not options or their values.\n"
	"\tfor ((i = 1; i < n - 1; i++)); do\n"
	"\t\tw=${words[i]}\n"
	"\t\tif [[ $w == -- ]]; then\n"
	"\t\t\t# run, launch: a command and its arguments follow\n"
	"\t\t\tif ((i == n - 2)); then COMPREPLY=($(compgen -c -- \"$cur\")); else\n"
	"\t\t\t\tcompopt -o filenames 2>/dev/null; mapfile -t COMPREPLY < <(compgen -f -- \"$cur\"); fi\n"
	"\t\t\treturn 0\n"
	"\t\tfi\n"
	SCAN_WORD
	"\tdone\n"
	"\troot=${root/#\\~/$HOME}\n"
	"\tif [[ -z $key ]]; then\n"
	"\t\tif [[ $cur == -* ]]; then COMPREPLY=($(compgen -W '--help --version' -- \"$cur\"))\n"
	"\t\telse COMPREPLY=($(compgen -W \"$_gpufeed_commands\" -- \"$cur\")); fi\n"
	"\t\treturn 0\n"
	"\tfi\n"
	"\tcase $key in\n"
	"\thelp) COMPREPLY=($(compgen -W \"$_gpufeed_commands $_gpufeed_topics\" -- \"$cur\")); return 0 ;;\n"
	"\thelp\\ *) COMPREPLY=($(compgen -W \"${_gpufeed_subs[${key#help }]-}\" -- \"$cur\")); return 0 ;;\n"
	"\tesac\n"
	"\tif [[ -n $prev && $prev != *=* && ${_gpufeed_args[$key]-} == *\" $prev \"* ]]; then\n"
	"\t\t_gpufeed_value \"$self\" \"$root\" \"${_gpufeed_values[$key $prev]-}\" \"$cur\"\n"
	"\telif [[ $cur == -*=* ]]; then\n"
	"\t\t_gpufeed_value \"$self\" \"$root\" \"${_gpufeed_values[$key ${cur%%=*}]-}\" \"${cur#*=}\"\n"
	"\t\t# without '=' in COMP_WORDBREAKS the word replaced is the whole --opt=value\n"
	"\t\t[[ $COMP_WORDBREAKS == *=* ]] || pre=${cur%%=*}=\n"
	"\t\t[[ -n $pre ]] && COMPREPLY=(\"${COMPREPLY[@]/#/$pre}\")\n"
	"\telif [[ $cur == -* ]]; then\n"
	"\t\tCOMPREPLY=($(compgen -W \"${_gpufeed_opts[$key]-}\" -- \"$cur\"))\n"
	"\telif [[ $key != *' '* && -n ${_gpufeed_subs[$key]-} ]]; then\n"
	"\t\tCOMPREPLY=($(compgen -W \"${_gpufeed_subs[$key]}\" -- \"$cur\"))\n"
	"\telse\n"
	"\t\t_gpufeed_value \"$self\" \"$root\" \"${_gpufeed_operands[$key]-}\" \"$cur\"\n"
	"\tfi\n"
	"\treturn 0\n"
	"}\n"
	"complete -F _gpufeed gpufeed\n";

void gf_completion_bash(FILE *f)
{
	fprintf(f, "# bash completion for gpufeed %s, written by 'gpufeed completion bash' from\n"
		   "# its command tables.  'make install' puts it in bash-completion's directory;\n"
		   "# or: source <(gpufeed completion bash)\n",
		gf_version());
	write_tables(f, false);
	fputc('\n', f);
	fputs(bash_body, f);
}

static const char zsh_body[] =
	"_gpufeed_gpus()\n"
	"{\n"
	"\tlocal self=$1 root=$2 list=$3 line idx uuid name\n"
	"\tlocal -a items\n"
	"\tfor line in ${(f)\"$(\"$self\" completion --gpus ${root:+--root} ${root:+\"$root\"} 2>/dev/null)\"}; do\n"
	"\t\tidx=${line%%$'\\t'*}; line=${line#*$'\\t'}; uuid=${line%%$'\\t'*}; name=${line#*$'\\t'}\n"
	"\t\titems+=(\"$idx:$uuid $name\")\n"
	"\t\t[[ -n $uuid ]] && items+=(\"$uuid:GPU $idx $name\")\n"
	"\tdone\n"
	"\tif [[ $list == list ]]; then\n"
	"\t\tcompset -P '*,'\n"
	"\tfi\n"
	"\t_describe -t gpus 'GPU' items\n"
	"}\n"
	"\n"
	"_gpufeed_value()\n"
	"{\n"
	"\tlocal self=$1 root=$2 spec=$3\n"
	"\tcase $spec in\n"
	"\t'<file>') _files ;;\n"
	"\t'<dir>') _files -/ ;;\n"
	"\t'<gpu>') _gpufeed_gpus \"$self\" \"$root\" one ;;\n"
	"\t'<gpus>') _gpufeed_gpus \"$self\" \"$root\" list ;;\n"
	"\t'') _message 'value' ;;\n"
	"\t*) compadd -- ${=spec} ;;\n"
	"\tesac\n"
	"}\n"
	"\n"
	"_gpufeed()\n"
	"{\n"
	"\tlocal self=${words[1]} key= root= cur=${words[CURRENT]} prev= w i spec last=$CURRENT\n"
	"\tlocal -a items\n"
	"\t((CURRENT > 2)) && prev=${words[CURRENT-1]}\n"
	"\tfor ((i = 2; i < CURRENT; i++)); do\n"
	"\t\tw=${words[i]}\n"
	"\t\tif [[ $w == -- ]]; then\n"
	"\t\t\tif ((i == CURRENT - 1)); then _command_names -e; else _files; fi\n"
	"\t\t\treturn\n"
	"\t\tfi\n"
	SCAN_WORD
	"\tdone\n"
	"\troot=${~root}\n"
	"\tif [[ -z $key ]]; then\n"
	"\t\tif [[ $cur == -* ]]; then compadd -- --help --version; return; fi\n"
	"\t\titems=()\n"
	"\t\tfor w in ${=_gpufeed_commands}; do items+=(\"$w:${_gpufeed_cmddesc[$w]-}\"); done\n"
	"\t\t_describe -t commands 'gpufeed command' items\n"
	"\t\treturn\n"
	"\tfi\n"
	"\tcase $key in\n"
	"\thelp) compadd -- ${=_gpufeed_commands} ${=_gpufeed_topics}; return ;;\n"
	"\thelp\\ *) compadd -- ${=_gpufeed_subs[${key#help }]-}; return ;;\n"
	"\tesac\n"
	"\tif [[ -n $prev && $prev != *=* && ${_gpufeed_args[$key]-} == *\" $prev \"* ]]; then\n"
	"\t\t_gpufeed_value \"$self\" \"$root\" \"${_gpufeed_values[$key $prev]-}\"\n"
	"\telif [[ $cur == -*=* ]]; then\n"
	"\t\tspec=${_gpufeed_values[$key ${cur%%=*}]-}\n"
	"\t\tcompset -P '*='\n"
	"\t\t_gpufeed_value \"$self\" \"$root\" \"$spec\"\n"
	"\telif [[ $cur == -* ]]; then\n"
	"\t\titems=(${(f)_gpufeed_optdesc[$key]-})\n"
	"\t\tfor w in ${=_gpufeed_opts[$key]-}; do [[ $w == -? ]] && items+=(\"$w\"); done\n"
	"\t\t_describe -t options 'option' items\n"
	"\telif [[ $key != *' '* && -n ${_gpufeed_subs[$key]-} ]]; then\n"
	"\t\titems=()\n"
	"\t\tfor w in ${=_gpufeed_subs[$key]}; do items+=(\"$w:${_gpufeed_cmddesc[$key $w]-}\"); done\n"
	"\t\t_describe -t commands \"gpufeed $key command\" items\n"
	"\telse\n"
	"\t\t_gpufeed_value \"$self\" \"$root\" \"${_gpufeed_operands[$key]-}\"\n"
	"\tfi\n"
	"}\n"
	"\n"
	"if [[ $funcstack[1] == _gpufeed ]]; then\n"
	"\t_gpufeed \"$@\"\n"
	"else\n"
	"\tcompdef _gpufeed gpufeed\n"
	"fi\n";

void gf_completion_zsh(FILE *f)
{
	fprintf(f, "#compdef gpufeed\n"
		   "# zsh completion for gpufeed %s, written by 'gpufeed completion zsh' from its\n"
		   "# command tables.  'make install' puts it in zsh's site-functions as _gpufeed;\n"
		   "# or: source <(gpufeed completion zsh) after compinit\n",
		gf_version());
	write_tables(f, true);
	fputc('\n', f);
	fputs(zsh_body, f);
}
