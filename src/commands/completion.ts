/**
 * Shell completion scripts, generated from the command tree so every command, flag and option
 * value is covered as commands are added. Session keys, archive names and time zones come from
 * the tool at completion time (the hidden `__complete keys|archives|zones` command), read from
 * the store the line names (--state-dir, --agent, … typed before the cursor).
 */
import { TAB_COUNT_DIGITS, TAB_FORMAT, TAB_STAT_FORMAT } from "../store/cache/tab-proof.js";
import { ANSWER_ENV_NAMES, ANSWER_ENV_PREFIXES } from "../store/cache/answer-env.js";

export type Shell = "bash" | "zsh" | "fish";

/** What the value of an option, or a positional argument, is. */
export type ValueKind =
  | { kind: "none" }
  | { kind: "file" }
  | { kind: "dir" }
  | { kind: "words"; words: string[] }
  | { kind: "dynamic"; what: "keys" | "archives" | "zones" };

export interface FlagSpec {
  long?: string;
  short?: string;
  description: string;
  /** null: a switch that takes no value. */
  value: ValueKind | null;
}

export interface CommandSpec {
  name: string;
  description: string;
  flags: FlagSpec[];
  /** What the first positional argument is. */
  positional: ValueKind;
}

const NAME = "openclaw-sessions";
/** Options that choose the store: passed on to `__complete` when typed on the line. */
export const STORE_FLAGS = ["--state-dir", "--profile", "--agent", "--sessions-dir", "--store"];

const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

function flagNames(f: FlagSpec): string[] {
  return [f.long, f.short].filter((x): x is string => typeof x === "string");
}

// ---- bash ---------------------------------------------------------------------------------

function bashValue(v: ValueKind): string {
  switch (v.kind) {
    case "file":
      return `compopt -o filenames 2>/dev/null; COMPREPLY=( $(compgen -f -- "$cur") )`;
    case "dir":
      return `compopt -o filenames 2>/dev/null; COMPREPLY=( $(compgen -d -- "$cur") )`;
    case "words":
      return `COMPREPLY=( $(compgen -W ${q(v.words.join("\n"))} -- "$cur") )`;
    case "dynamic": {
      // The tool matches the prefix, and each line is taken as it is: compgen -W would expand the
      // items as shell words (a `$(…)` in a key would run) and an unquoted list would glob.
      const asked = `while IFS= read -r item; do COMPREPLY+=("$item"); done < <(${NAME} __complete ${v.what} --prefix="$cur" "\${store[@]}" 2>/dev/null)`;
      return v.what === "keys" ? `_openclaw_sessions_kept_keys "$cur" "\${store[@]}" || ${asked}` : asked;
    }
    default:
      return `COMPREPLY=()`;
  }
}

function bash(cmds: CommandSpec[]): string {
  const perCommand = cmds
    .map((c) => {
      const valued = c.flags.filter((f) => f.value !== null);
      const prevCases = valued.map((f) => `        ${flagNames(f).join("|")}) ${bashValue(f.value!)} ;;`).join("\n");
      return `    ${c.name})
      opts=${q(c.flags.flatMap(flagNames).join("\n"))}
      case "$prev" in
${prevCases}
        *)
          if [[ "$cur" == -* ]]; then COMPREPLY=( $(compgen -W "$opts" -- "$cur") )
          else ${bashValue(c.positional)}
          fi ;;
      esac ;;`;
    })
    .join("\n");
  return `# bash completion for ${NAME} (source it, or save as /etc/bash_completion.d/${NAME})
${bashKeptKeys()}
_openclaw_sessions() {
  # The line up to the cursor, split on blanks only: bash's COMP_WORDS also splits at ":" (in
  # COMP_WORDBREAKS), and session keys are full of colons.
  local line="\${COMP_LINE:0:COMP_POINT}"
  local cur="\${line##*[[:blank:]]}"
  local -a words
  read -ra words <<< "\${line%"$cur"}"
  local cmd="\${words[1]}" prev="\${words[\${#words[@]}-1]}" opts=""
  COMPREPLY=()
  if [ "\${#words[@]}" -le 1 ]; then
    COMPREPLY=( $(compgen -W "${cmds.map((c) => c.name).join(" ")}" -- "$cur") )
    return
  fi
  # The store options typed on the line choose where keys and archives come from.
  local -a store=()
  local i item
  for (( i = 2; i < \${#words[@]}; i++ )); do
    case "\${words[i]}" in
      ${STORE_FLAGS.join("|")}) store+=("\${words[i]}" "\${words[i+1]}"); i=$((i + 1)) ;;
      ${STORE_FLAGS.map((f) => `${f}=*`).join("|")}|--all-agents) store+=("\${words[i]}") ;;
    esac
  done
  # Word lists and the tool's answers are one item a line.
  local IFS=$'\\n'
  case "$cmd" in
${perCommand}
  esac
  # Bash replaces only the part after the last ":" of the word: give back only that part.
  if [[ "$cur" == *:* && "$COMP_WORDBREAKS" == *:* ]]; then
    local colon_prefix="\${cur%"\${cur##*:}"}"
    COMPREPLY=( "\${COMPREPLY[@]#"$colon_prefix"}" )
  fi
}
complete -F _openclaw_sessions ${NAME}
`;
}

/**
 * The kind probes of a proof (`sd /path`: a dir is there, `l-`: nothing is, not even a link…): each
 * one's test of the path P, with the operators `test` and `[[ ]]` share.
 */
const KIND_TESTS: Array<[string, string]> = [
  ["sd", "-d P"],
  ["sf", "-f P"],
  ["s-", "! -e P"],
  ["ld", "-d P && ! -L P"],
  ["lf", "-f P && ! -L P"],
  ["ly", "-L P"],
  ["l-", "! -e P && ! -L P"],
];

/** The kind probes as bash and zsh alike test them with `[[ ]]`; `$line` holds the probe. */
function kindProbes(indent: string): string {
  const cases = KIND_TESTS.map(([letters, test]) => `${indent}  ${letters}) [[ ${test.replaceAll("P", `"\${line#* }"`)} ]] ;;`);
  return [`${indent}case "\${line%% *}" in`, ...cases, `${indent}  *) false ;;`, `${indent}esac || return 1`].join("\n");
}

/** answerEnv's variables as bash lists them, in name order: each name, each prefix's names (`${!XDG_@}`). */
function bashEnvNames(): string {
  const parts: Array<[string, string]> = [
    ...ANSWER_ENV_NAMES.map((n): [string, string] => [n, n]),
    ...ANSWER_ENV_PREFIXES.map((p): [string, string] => [p, `\${!${p}@}`]),
  ];
  return parts
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([, shown]) => shown)
    .join(" ");
}

/**
 * The keys a Tab before left (store/cache/tab-proof.ts writes them, and says what each part is),
 * while GNU stat and bash's own tests find everything they came from as it was: no Node start for
 * a Tab on a store that has not changed. Returns 1, having offered nothing, for anything else: the
 * tool then answers, and leaves the next Tab a proof. The question is spelt as tabQuestion spells it.
 */
function bashKeptKeys(): string {
  return `# Keys without starting the tool: those its last Tab left, while all they came from is unchanged.
_openclaw_sessions_kept_keys() {
  local LC_ALL=C IFS= cur=$1 file q n i line got want from to mid
  local -a paths kinds keys
  shift
  # mapfile and \${name@a} are bash 4.4's (macOS ships 3.2): an older bash asks the tool.
  ((BASH_VERSINFO[0] > 4 || (BASH_VERSINFO[0] == 4 && BASH_VERSINFO[1] >= 4))) || return 1
  [[ \${XDG_CACHE_HOME-} == /* ]] && file=$XDG_CACHE_HOME || file=\${HOME-}/.cache
  [[ $file == /* && $PWD == /* ]] || return 1
  q="cwd=$PWD"
  for i in "$@"; do q+=$'\\n'"arg=$i"; done
  for n in ${bashEnvNames()}; do
    [[ \${!n+x} && \${!n@a} == *x* ]] && q+=$'\\n'"env=$n=\${!n}"
  done
  file+="/openclaw-sessions/tab/keys-\${#q}"
  [[ -f $file && -r $file ]] || return 1
  # Each group after its count of lines (1 to ${TAB_COUNT_DIGITS} digits; a file that ends before a group does is
  # none): the question, the paths given to stat, what it prints of them, the kind of thing at each
  # path where the stores were looked for, the keys.
  {
    read -r line && [[ $line == ${q(TAB_FORMAT)} ]] || return 1
    read -r n && [[ $n =~ ^[0-9]{1,${TAB_COUNT_DIGITS}}$ ]] || return 1
    for ((i = 0; i < n; i++)); do read -r line || return 1; got+=\${got:+$'\\n'}$line; done
    [[ $got == "$q" ]] || return 1
    read -r n && [[ $n =~ ^[0-9]{1,${TAB_COUNT_DIGITS}}$ ]] || return 1
    for ((i = 0; i < n; i++)); do read -r line || return 1; paths+=("$line"); done
    read -r n && [[ $n =~ ^[0-9]{1,${TAB_COUNT_DIGITS}}$ ]] || return 1
    for ((i = 0; i < n; i++)); do read -r line || return 1; want+=\${want:+$'\\n'}$line; done
    read -r n && [[ $n =~ ^[0-9]{1,${TAB_COUNT_DIGITS}}$ ]] || return 1
    for ((i = 0; i < n; i++)); do read -r line || return 1; kinds+=("$line"); done
    read -r n && [[ $n =~ ^[0-9]{1,${TAB_COUNT_DIGITS}}$ ]] || return 1
    mapfile -t keys
    ((\${#keys[@]} == n)) || return 1
  } < "$file" || return 1
  [[ "$(command stat -c ${q(TAB_STAT_FORMAT)} -- "\${paths[@]}" 2>/dev/null)" == "$want" ]] || return 1
  for line in "\${kinds[@]}"; do
${kindProbes("    ")}
  done
  # The keys that begin with $cur: sorted by their bytes, they are one run of lines, found by halving.
  from=0 to=\${#keys[@]}
  while ((from < to)); do mid=$(((from + to) / 2)); if [[ \${keys[mid]} < $cur ]]; then from=$((mid + 1)); else to=$mid; fi; done
  n=$from to=\${#keys[@]}
  while ((n < to)); do mid=$(((n + to) / 2)); if [[ \${keys[mid]} == "$cur"* ]]; then n=$((mid + 1)); else to=$mid; fi; done
  # One at a time: for a slice bash walks the array from its start (4 ms on 5,000 keys), for the next element it does not.
  for ((i = from; i < n; i++)); do COMPREPLY+=("\${keys[i]}"); done
}`;
}

// ---- zsh ----------------------------------------------------------------------------------

/** A word of a zsh _arguments spec (the value's message): one word, no brackets, colons or quotes. */
const zword = (s: string) =>
  s
    .replace(/[[\]:'\\`$]/g, " ")
    .replace(/\s+/g, " ")
    .trim();

/** A description as one line inside a single-quoted zsh word: apostrophes and colons kept. */
const zquoted = (s: string) => s.replace(/\s+/g, " ").trim().replace(/'/g, `'\\''`);

/** A flag's description inside `[…]` of an _arguments spec: its brackets and backslashes escaped, colons kept. */
const zexplain = (s: string) => zquoted(s.replace(/[[\]\\]/g, "\\$&"));

function zshAction(v: ValueKind): string {
  switch (v.kind) {
    case "file":
      return "_files";
    case "dir":
      return "_files -/";
    case "words":
      return `(${v.words.join(" ")})`;
    case "dynamic":
      return `_openclaw_sessions_${v.what}`;
    default:
      return " ";
  }
}

function zsh(cmds: CommandSpec[]): string {
  const perCommand = cmds
    .map((c) => {
      const specs: string[] = [];
      for (const f of c.flags) {
        const names = flagNames(f);
        const head = names.length > 1 ? `(${names.join(" ")})'{${names.join(",")}}'` : names[0]!;
        const value = f.value === null ? "" : `:${zword(f.description).split(" ")[0] || "value"}:${zshAction(f.value)}`;
        specs.push(`'${head}[${zexplain(f.description)}]${value}'`);
      }
      if (c.positional.kind !== "none")
        specs.push(`'1:${c.positional.kind === "dynamic" ? c.positional.what : "argument"}:${zshAction(c.positional)}'`);
      return `      ${c.name}) _arguments -s ${specs.join(" \\\n        ")} ;;`;
    })
    .join("\n");
  // _describe splits name from description at the first colon: later ones are the description's.
  const list = cmds.map((c) => `'${c.name}:${zquoted(c.description)}'`).join(" ");
  const dynamic = (["keys", "archives", "zones"] as const)
    .map((what) => {
      const asked = `items=( \${(f)"$(${NAME} __complete ${what} "\${store[@]}" 2>/dev/null)"} )`;
      return `_openclaw_sessions_${what}() {
  local -a items store
  _openclaw_sessions_store; store=( "\${reply[@]}" )
  ${what === "keys" ? `if _openclaw_sessions_kept_keys "\${store[@]}"; then items=( "\${reply[@]}" ); else ${asked}; fi` : asked}
  compadd -- $items
}`;
    })
    .join("\n");
  return `#compdef ${NAME}
# zsh completion for ${NAME} (save as _${NAME} in a directory of $fpath, or source it)

# The store options typed on the line, for the keys and archives of that store: in $reply, one word
# each (a path with a blank stays one).
_openclaw_sessions_store() {
  local i
  reply=()
  for (( i = 2; i < CURRENT; i++ )); do
    case $words[i] in
      ${STORE_FLAGS.join("|")}) reply+=( $words[i] "\${(Q)words[i+1]}" ); (( i++ )) ;;
      ${STORE_FLAGS.map((f) => `${f}=*`).join("|")}|--all-agents) reply+=( "\${(Q)words[i]}" ) ;;
    esac
  done
}
${zshKeptKeys()}
${dynamic}

_openclaw_sessions() {
  local curcontext="$curcontext" state line
  typeset -A opt_args
  _arguments -C '1:command:->command' '*::arg:->args'
  case $state in
    command)
      local -a commands
      commands=( ${list} )
      _describe command commands ;;
    args)
      case $words[1] in
${perCommand}
      esac ;;
  esac
}
if (( $+functions[compdef] )); then compdef _openclaw_sessions ${NAME}; fi
`;
}

/**
 * zsh's own answer from the proof bash reads (bashKeptKeys): the same question, file and checks,
 * the keys in $reply (compadd matches them against the word itself). With zsh's own modules, no
 * fork and no GNU coreutils (macOS): the file read whole through zsh/mapfile, which keeps its last
 * newline (a proof cut inside its last key is no proof), each path's lstat through zsh/stat's
 * zstat, printed as GNU `stat` prints it.
 */
function zshKeptKeys(): string {
  const names = [`(${ANSWER_ENV_PREFIXES.join("|")})[A-Za-z0-9_]##`, ...ANSWER_ENV_NAMES].join("|");
  return `# Keys without starting the tool: those its last Tab left, while all they came from is unchanged.
# Into $reply; 1, having offered nothing, for anything else.
_openclaw_sessions_kept_keys() {
  emulate -L zsh
  setopt extendedglob nomultibyte
  local LC_ALL=C file q name line mode printed=""
  local -a lines
  local -A st
  local -i at=2 from
  zmodload -F zsh/mapfile p:mapfile 2>/dev/null && zmodload -F zsh/stat b:zstat 2>/dev/null || return 1
  [[ \${XDG_CACHE_HOME-} == /* ]] && file=$XDG_CACHE_HOME || file=\${HOME-}/.cache
  [[ $file == /* && $PWD == /* ]] || return 1
  q="cwd=$PWD"
  for name in "$@"; do q+=$'\\n'"arg=$name"; done
  for name in \${(o)parameters[(I)${names}]}; do
    [[ \${parameters[$name]} == *-export* ]] && q+=$'\\n'"env=$name=\${(P)name}"
  done
  file+="/openclaw-sessions/tab/keys-\${#q}"
  [[ -f $file && -r $file ]] || return 1
  # Split at each newline: a proof that ends with one (whole) ends with an empty element.
  lines=( "\${(@f)mapfile[$file]}" )
  [[ \${lines[1]} == ${q(TAB_FORMAT)} && -z \${lines[-1]} ]] || return 1
  _openclaw_sessions_proof_group && [[ \${(pj:\\n:)lines[from,at-1]} == "$q" ]] || return 1
  # What GNU \`stat -c ${TAB_STAT_FORMAT}\` prints of each path (nothing for one it cannot look at), from zstat.
  _openclaw_sessions_proof_group || return 1
  for name in "\${(@)lines[from,at-1]}"; do
    zstat -L -r -F '%s.%N' -H st -- "$name" 2>/dev/null || continue
    mode=\${(L)$(( [##16] \${st[mode]%% *} ))}
    printed+=\${printed:+$'\\n'}"$mode:$st[device]:$st[inode]:$st[size]:\${\${st[mtime]#* \\(}%\\)}:\${\${st[ctime]#* \\(}%\\)} $name"
  done
  _openclaw_sessions_proof_group && [[ $printed == "\${(pj:\\n:)lines[from,at-1]}" ]] || return 1
  _openclaw_sessions_proof_group || return 1
  for line in "\${(@)lines[from,at-1]}"; do
${kindProbes("    ")}
  done
  _openclaw_sessions_proof_group && (( at == \${#lines} )) || return 1
  reply=( "\${(@)lines[from,at-1]}" )
}
# The proof's next group: its count at line $at of the caller's $lines (1 to ${TAB_COUNT_DIGITS} digits, never
# evaluated as arithmetic before, and no more lines than are left), its lines from $from to before
# the next $at.
_openclaw_sessions_proof_group() {
  [[ \${lines[at]} == [0-9](#c1,${TAB_COUNT_DIGITS}) ]] && (( at + \${lines[at]} < \${#lines} )) || return 1
  (( from = at + 1, at = from + \${lines[at]} ))
}`;
}

// ---- fish ---------------------------------------------------------------------------------

const fdesc = (s: string) =>
  s
    .replace(/["\\$]/g, "")
    .replace(/\s+/g, " ")
    .trim();

function fishValue(v: ValueKind): string {
  switch (v.kind) {
    case "file":
      return "-r -F";
    case "dir":
      return `-x -a "(__fish_complete_directories)"`;
    case "words":
      return `-x -a "${v.words.join(" ")}"`;
    case "dynamic":
      return `-x -a "(__openclaw_sessions_complete ${v.what})"`;
    default:
      return "-x";
  }
}

/**
 * fish's own answer from the proof bash and zsh read: the same question, file and checks, with
 * fish's builtins and GNU `stat` (one fork); the keys printed, one a line (fish matches them against
 * the word itself), only those that begin with the word when that leaves fish the same best
 * matches. A question with other than ASCII is left to the tool: fish counts characters, and the
 * file is named by bytes.
 */
function fishKeptKeys(): string {
  const probes = KIND_TESTS.map(
    ([letters, test]) =>
      `                            case ${letters}\n                                test ${test.replaceAll("&&", "-a").replaceAll("P", "$p")}`,
  ).join("\n");
  return `function __openclaw_sessions_kept_keys
    # Keys without starting the tool: those its last Tab left, while all they came from is unchanged.
    set -l file $HOME/.cache
    string match -q -- '/*' "$XDG_CACHE_HOME"; and set file $XDG_CACHE_HOME
    string match -q -- '/*' "$file"; and string match -q -- '/*' "$PWD"; or return 1
    set -l asked "cwd=$PWD"
    for a in $argv
        set -a asked "arg=$a"
    end
    # set -n lists the names in code point order (where one is exported twice, once is enough).
    set -l last
    for n in (set -xn)
        test "$n" = "$last"; and continue
        set last $n
        string match -qr '^(?:${[...ANSWER_ENV_PREFIXES.map((p) => `${p}\\w+`), ...ANSWER_ENV_NAMES].join("|")})$' -- $n; and set -a asked "env=$n=$$n"
    end
    string match -qr '[^\\x01-\\x09\\x0b-\\x7f]' -- $asked; and return 1
    set -l bytes (math (count $asked) - 1)
    for a in $asked
        set bytes (math $bytes + (string length -- $a))
    end
    set file $file/openclaw-sessions/tab/keys-$bytes
    test -f $file -a -r $file; or return 1
    # One open: each group after its count (1 to ${TAB_COUNT_DIGITS} digits: math says nothing), its lines read one by
    # one, then the keys as one text: fish pays for each word of a list each time it makes or passes
    # one, and 5,000 keys as a list cost more than starting Node (docs/performance.md, stop 86).
    set -l line
    set -l n
    set -l group
    set -l paths
    set -l keys
    begin
        read line; and test "$line" = ${q(TAB_FORMAT)}; or return 1
        for g in asked paths printed kinds
            read n; and string match -qr '^[0-9]{1,${TAB_COUNT_DIGITS}}$' -- "$n"; or return 1
            set group
            while test $n -gt 0
                read line; or return 1
                set -a group $line
                set n (math $n - 1)
            end
            switch $g
                case asked
                    __openclaw_sessions_same (count $asked) $asked $group; or return 1
                case paths
                    set paths $group
                case printed
                    __openclaw_sessions_same (count $group) $group (command stat -c ${q(TAB_STAT_FORMAT)} -- $paths 2>/dev/null); or return 1
                case kinds
                    for line in $group
                        set -l p (string sub -s 4 -- $line)
                        switch (string sub -l 2 -- $line)
${probes}
                            case '*'
                                false
                        end; or return 1
                    end
            end
        end
        read n; and string match -qr '^[0-9]{1,${TAB_COUNT_DIGITS}}$' -- "$n"; or return 1
        read -z keys
    end < $file
    # The rest is the keys: $n lines, each ended by its newline (a proof cut short is none). In
    # runs of 1,000: PCRE2 copies a group once for each repeat it is given (past 65,535 runs it
    # compiles none, and the tool answers).
    string match -qr -- "^(?:(?:[^\\n]*+\\n){1000}){"(math --scale=0 $n / 1000)"}(?:[^\\n]*+\\n){"(math $n % 1000)"}\\z" $keys 2>/dev/null; or return 1
    # Only the keys that begin with the word, when there are any: fish keeps only its best matches,
    # and a prefix in any case is better than any other, so it offers the same, and matches 5,000
    # keys no more. Only for a plain word and keys all ASCII, whose cases PCRE2 and fish fold alike
    # (fish's icase takes a capital dotted I for an i, PCRE2 does not).
    set -l word (commandline -ct)
    if string match -qr '^[A-Za-z0-9:._@+-]+$' -- "$word"; and not string match -qr '[^\\x01-\\x7f]' -- $keys
        set -l near (string match -rai -- "(?<![^\\n])"(string escape --style=regex -- $word 2>/dev/null)"[^\\n]*" $keys)
        if set -q near[1]
            printf '%s\\n' $near
            return 0
        end
    end
    printf %s $keys
end
# Whether the $argv[1] words after it are the rest, one for one.
function __openclaw_sessions_same --argument-names n
    test (count $argv) -eq (math 2 \\* $n + 1); or return 1
    set -l i 2
    set -l j (math $n + 2)
    while test $j -le (count $argv)
        test "$argv[$i]" = "$argv[$j]"; or return 1
        set i (math $i + 1)
        set j (math $j + 1)
    end
end`;
}

function fish(cmds: CommandSpec[]): string {
  const lines = [
    `# fish completion for ${NAME} (save as ~/.config/fish/completions/${NAME}.fish)`,
    fishKeptKeys(),
    `function __openclaw_sessions_complete --argument-names what`,
    `    # the store options typed on the line choose the store`,
    `    set -l tokens (commandline -opc)`,
    `    set -l store`,
    `    set -l i 1`,
    `    while test $i -lt (count $tokens)`,
    `        set i (math $i + 1)`,
    `        switch $tokens[$i]`,
    `            case ${STORE_FLAGS.join(" ")}`,
    `                set -l next (math $i + 1)`,
    `                if test $next -le (count $tokens)`,
    `                    set -a store $tokens[$i] $tokens[$next]`,
    `                end`,
    `            case ${STORE_FLAGS.map((f) => `'${f}=*'`).join(" ")} --all-agents`,
    `                set -a store $tokens[$i]`,
    `        end`,
    `    end`,
    `    test $what = keys; and __openclaw_sessions_kept_keys $store; and return`,
    `    ${NAME} __complete $what $store 2>/dev/null`,
    `end`,
    `complete -c ${NAME} -f`,
  ];
  for (const c of cmds) lines.push(`complete -c ${NAME} -n __fish_use_subcommand -a ${c.name} -d "${fdesc(c.description)}"`);
  for (const c of cmds) {
    const when = `-n "__fish_seen_subcommand_from ${c.name}"`;
    for (const f of c.flags) {
      const names = [f.long ? `-l ${f.long.slice(2)}` : "", f.short ? `-s ${f.short.slice(1)}` : ""].filter(Boolean).join(" ");
      lines.push(
        `complete -c ${NAME} ${when} ${names} ${f.value === null ? "" : `${fishValue(f.value)} `}-d "${fdesc(f.description)}"`.replace(
          / {2,}/g,
          " ",
        ),
      );
    }
    if (c.positional.kind !== "none") lines.push(`complete -c ${NAME} ${when} ${fishValue(c.positional)}`);
  }
  return `${lines.join("\n")}\n`;
}

export function completionScript(shell: Shell, cmds: CommandSpec[]): string {
  return shell === "bash" ? bash(cmds) : shell === "zsh" ? zsh(cmds) : fish(cmds);
}
