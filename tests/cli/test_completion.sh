#!/usr/bin/env bash
# Shell completion: 'gpufeed completion bash|zsh' from the command tables.
# bash's function is driven without a terminal (COMP_WORDS/COMP_CWORD set,
# _gpufeed called, COMPREPLY read); zsh's with its completion builtins
# replaced by stubs that collect what would be offered.  Every option of
# every command ('gpufeed help --options', the documented ones) must
# complete; every fixed value an option lists must complete and be taken
# by the parser; GPUs come from the recording --root names.
. "$(dirname "$0")/lib.sh"
HGX=$FIX/hgx-h100-8gpu/root
CI=$FIX/ci-vm/root

run "$GPUFEED" completion bash
cp "$out" "$TMP/gpufeed.bash"
if [ "$rc" = 0 ] && bash -n "$TMP/gpufeed.bash"; then ok "completion bash: a script bash parses"; else not_ok "completion bash: exit $rc"; fi
expect_rc 2 "completion for another shell is refused" "$GPUFEED" completion fish
expect_grep "$err" "bash or zsh" "  naming the two"
expect_rc 2 "completion needs a shell" "$GPUFEED" completion

# The commands: the leaves of 'gpufeed --help', as "topo" or "bench io".
mapfile -t commands < <("$GPUFEED" --help | sed -n '/^Commands:/,/^$/p' | sed -n 's/^  \([a-z][a-z0-9-]*\( [a-z][a-z0-9-]*\)\{0,1\}\)  .*/\1/p')
[ "${#commands[@]}" -ge 20 ] && ok "${#commands[@]} commands listed" || not_ok "only ${#commands[@]} commands found in --help"

# complete WORD...: what bash's function offers for the last word.
cat >"$TMP/harness.bash" <<'H'
source "$1"; shift
COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMPREPLY=()
_gpufeed
((${#COMPREPLY[@]} == 0)) || printf '%s\n' "${COMPREPLY[@]}"
H
complete() { bash "$TMP/harness.bash" "$TMP/gpufeed.bash" "$GPUFEED" "$@" 2>&1; }

# Every option of every command, from its first letters (the whole name
# less its last letter, so a prefix of several names still lists it).
missing= total=0
for c in "${commands[@]}"; do
	read -r -a words <<<"$c"
	for opt in $("$GPUFEED" help --options "${words[@]}"); do
		total=$((total + 1))
		complete "${words[@]}" "${opt%?}" | grep -qx -- "$opt" || missing="$missing $c:$opt"
	done
done
if [ -z "$missing" ] && [ "$total" -gt 200 ]; then ok "bash: all $total options of ${#commands[@]} commands complete"
else not_ok "bash: options that do not complete ($total tried):$missing"; fi

# Every command and subcommand from its first letters.
missing=
for c in "${commands[@]}"; do
	read -r -a words <<<"$c"
	if [ ${#words[@]} = 1 ]; then complete "${c%?}" | grep -qx -- "$c" || missing="$missing $c"
	else complete "${words[0]}" "${words[1]%?}" | grep -qx -- "${words[1]}" || missing="$missing $c"; fi
done
[ -z "$missing" ] && ok "bash: every command and subcommand completes" || not_ok "bash: not completed:$missing"

# Fixed values: each offered after its option, and each one the parser takes
# (checked at parse time: the value, then --help; a word it refuses exits 2).
# Values checked after parsing (config's --policy, --scope, --autodetect)
# are given to the command on the CI recording.
bad= nvalues=0
while IFS=$'\t' read -r key spec; do
	c=${key% --*} opt=--${key##* --}
	read -r -a words <<<"$c"
	offered=$(complete "${words[@]}" "$opt" "")
	for v in $spec; do
		nvalues=$((nvalues + 1))
		grep -qx -- "$v" <<<"$offered" || bad="$bad $c:$opt=$v(not offered)"
		if "$GPUFEED" "${words[@]}" "$opt=gpufeed-no-such-value" --help >/dev/null 2>&1; then
			[[ $c == config\ * ]] || { bad="$bad $c:$opt(not checked at parse)"; continue; }
			"$GPUFEED" "${words[@]}" --root "$CI" "$opt=$v" >/dev/null 2>"$TMP/e"
			[ $? != 2 ] || bad="$bad $c:$opt=$v(refused: $(head -1 "$TMP/e"))"
		else
			"$GPUFEED" "${words[@]}" "$opt=$v" --help >/dev/null 2>"$TMP/e" || bad="$bad $c:$opt=$v(refused)"
		fi
	done
done < <(bash -c 'source "$1"; for k in "${!_gpufeed_values[@]}"; do v=${_gpufeed_values[$k]}; [[ $k == *" --"* && $v != "<"* ]] && printf "%s\t%s\n" "$k" "$v"; done' _ "$TMP/gpufeed.bash")
if [ -z "$bad" ] && [ "$nvalues" -ge 30 ]; then ok "bash: all $nvalues fixed values complete and parse"; else not_ok "bash: values ($nvalues):$bad"; fi

# Values, joined and split as bash splits them at '='.
complete topo --nvml=r | grep -qx require && ok "bash: --nvml=r completes require" || not_ok "bash: --nvml=r"
complete topo --nvml = r | grep -qx require && ok "bash: --nvml = r (split at '=') completes require" || not_ok "bash: --nvml = r"
complete check --fail-on "" | grep -qx never && ok "bash: check --fail-on offers never" || not_ok "bash: --fail-on"

# GPUs from the recording --root names (index and UUID), as topo --json has them.
"$GPUFEED" topo --root "$HGX" --json | jq -r '.gpus[] | .index, .uuid' | sort >"$TMP/want"
complete topo --root "$HGX" --gpu "" | sort >"$TMP/got"
if [ -s "$TMP/want" ] && cmp -s "$TMP/want" "$TMP/got"; then ok "bash: topo --gpu offers the recording's 8 GPUs by index and UUID"
else not_ok "bash: topo --gpu"; diff "$TMP/want" "$TMP/got" | head -5 | sed 's/^/#   /'; fi
complete run --root="$HGX" -g "0,GPU-1a5" >"$TMP/got"
if [ "$(cat "$TMP/got")" = "0,GPU-1a5ced5f-2df0-b80f-bfda-f644732e51f9" ]; then ok "bash: run -g completes the list's last GPU (--root=DIR)"
else not_ok "bash: run -g 0,GPU-1a5: $(head -3 "$TMP/got")"; fi
complete topo --root "$CI" --gpu "" >"$TMP/got"
[ ! -s "$TMP/got" ] && ok "bash: a machine without GPUs offers none" || not_ok "bash: ci-vm offered $(head -1 "$TMP/got")"
# A recording's strings are data: a UUID or name holding $(...) or `...`
# is offered as it is and never run (compgen -W would expand it).
cp -a "$HGX" "$TMP/hostile"
jq --arg u 'GPU-$(touch${IFS}'"$TMP"'/ran1)' --arg n '`touch '"$TMP"'/ran2`' \
	'.gpus[0].uuid = $u | .gpus[0].name = $n' "$HGX/nvml.json" >"$TMP/hostile/nvml.json"
complete topo --root "$TMP/hostile" --gpu "" >"$TMP/got"
complete run --root "$TMP/hostile" -g "1,G" >>"$TMP/got"
if [ ! -e "$TMP/ran1" ] && [ ! -e "$TMP/ran2" ] && grep -qxF 'GPU-$(touch${IFS}'"$TMP"'/ran1)' "$TMP/got"
then ok "bash: a recording's \$(...) in a GPU's UUID is offered, never run"
else not_ok "bash: hostile UUID: $(ls "$TMP"/ran* 2>/dev/null) $(head -2 "$TMP/got")"; fi
expect_rc 0 "completion --gpus on a recording" "$GPUFEED" completion --gpus --root "$HGX"
if [ "$(wc -l <"$out")" = 8 ] && [ "$(cut -f3 "$out" | sort -u)" = "NVIDIA H100 80GB HBM3" ]; then ok "  8 lines: index, UUID, name"; else not_ok "  $(head -2 "$out")"; fi
expect_rc 3 "completion --gpus on a missing recording" "$GPUFEED" completion --gpus --root /no/such/dir

# Files, help topics, the command after --.
mkdir -p "$TMP/files" && : >"$TMP/files/machine.tar.gz"
complete record --root "$TMP/files/mach" | grep -qx "$TMP/files/machine.tar.gz" && ok "bash: --root completes a file" || not_ok "bash: --root file"
complete nccl log "$TMP/files/m" | grep -qx "$TMP/files/machine.tar.gz" && ok "bash: nccl log's FILE operand completes" || not_ok "bash: operand file"
complete help loa | grep -qx loader && ok "bash: help completes topics" || not_ok "bash: help loa"
complete help nccl "" | grep -qx ras && ok "bash: help nccl completes its subcommands" || not_ok "bash: help nccl"
complete run -g 0 -- bas | grep -qx bash && ok "bash: after --, a command" || not_ok "bash: run -- bas"

# zsh: the script parses, and its function offers every option too, with the
# completion builtins stubbed (they print what they would offer).
if command -v zsh >/dev/null; then
	"$GPUFEED" completion zsh >"$TMP/_gpufeed"
	if zsh -n "$TMP/_gpufeed"; then ok "completion zsh: a script zsh parses"; else not_ok "completion zsh: zsh -n failed"; fi
	cat >"$TMP/harness.zsh" <<'Z'
compdef() { : }
compadd() { while [[ $1 == -* && $1 != -- ]]; do shift; done; [[ $1 == -- ]] && shift; print -l -- "$@" }
_describe() { local -a a; a=("${(@P)4}"); print -l -- "${a[@]%%:*}" }
_files() { print -- '<files>' }
_command_names() { print -- '<commands>' }
_message() { : }
compset() { : }
source $1; shift
words=("$@"); CURRENT=$#
_gpufeed
Z
	zcomplete() { zsh -f "$TMP/harness.zsh" "$TMP/_gpufeed" "$GPUFEED" "$@" 2>&1; }
	missing= total=0
	for c in "${commands[@]}"; do
		read -r -a words <<<"$c"
		list=$(zcomplete "${words[@]}" -)
		for opt in $("$GPUFEED" help --options "${words[@]}"); do
			total=$((total + 1))
			grep -qx -- "$opt" <<<"$list" || missing="$missing $c:$opt"
		done
	done
	if [ -z "$missing" ] && [ "$total" -gt 200 ]; then ok "zsh: all $total options complete"; else not_ok "zsh: missing:$missing"; fi
	zcomplete topo --nvml "" | grep -qx require && ok "zsh: --nvml offers require" || not_ok "zsh: --nvml"
	zcomplete topo --root "$HGX" --gpu "" | grep -qx "GPU-1a5ced5f-2df0-b80f-bfda-f644732e51f9" && ok "zsh: topo --gpu offers the recording's UUIDs" || not_ok "zsh: --gpu"
	zcomplete ben | grep -qx bench && ok "zsh: commands" || not_ok "zsh: commands"
	zcomplete bench "" | grep -qx io-gpu && ok "zsh: subcommands" || not_ok "zsh: subcommands"
	zcomplete record "" | grep -qx '<files>' && ok "zsh: record's operand is a file" || not_ok "zsh: record operand"
	# And in a real interactive zsh (zsh/zpty) with compinit: TAB after
	# each typed line, waiting up to 5 s for what it should become.
	mkdir -p "$TMP/zfp" "$TMP/bin"
	cp "$TMP/_gpufeed" "$TMP/zfp/_gpufeed"
	ln -s "$(realpath "$GPUFEED")" "$TMP/bin/gpufeed"
	cat >"$TMP/zpty.zsh" <<'Z'
zmodload zsh/zpty
fdir=$1 bdir=$2; shift 2
zpty z "zsh -f -i"
zpty -w z "PS1='> '; PATH=$bdir:\$PATH; fpath=($fdir \$fpath); autoload -Uz compinit; compinit -u -D; setopt nobeep; print READY"
for ((i = 0; i < 100; i++)); do zpty -r -t z line && [[ $line == READY* ]] && break; sleep 0.1; done
while (($# >= 2)); do
	typed=$1 want=$2; shift 2
	zpty -w -n z "$typed"$'\t'
	out=
	for ((i = 0; i < 50; i++)); do
		while zpty -r -t z line; do out+=${line//$'\r'/}; done
		# zle redraws with escape sequences between the characters
		out=$(print -r -- "$out" | sed 's/\x1b\[[0-9;?]*[a-zA-Z]//g')
		[[ $out == *"$want"* ]] && break
		sleep 0.1
	done
	[[ $out == *"$want"* ]] && print -r -- "got: $want" || print -r -- "missed: $typed -> $want"
	zpty -w z $'\x03'
	sleep 0.2
	while zpty -r -t z line; do :; done
done
zpty -d z
Z
	timeout 60 zsh -f "$TMP/zpty.zsh" "$TMP/zfp" "$TMP/bin" \
		"gpufeed topo --nv" "gpufeed topo --nvml " \
		"gpufeed topo --nvml r" "--nvml require " \
		"gpufeed topo --root $HGX --gpu GPU-1a" "GPU-1a5ced5f-2df0-b80f-bfda-f644732e51f9 " \
		"gpufeed bench io-" "gpufeed bench io-gpu " \
		"gpufeed help loa" "gpufeed help loader " >"$TMP/zpty.out" 2>&1
	if [ "$(grep -c '^got: ' "$TMP/zpty.out")" = 5 ]; then ok "zsh (interactive, compinit): options, values, GPUs, subcommands, topics complete on TAB"
	else not_ok "zsh interactive: $(grep -v '^got: ' "$TMP/zpty.out" | head -3 | tr '\n' ' ')"; fi
else
	echo "# zsh not installed: its script untested (apt-get install zsh)"
fi

finish
