/**
 * Shell completion scripts, generated from the command tree so every command and flag is
 * covered as commands are added. Session keys come from the current store at completion time
 * through the hidden `__complete keys` command.
 */

export type Shell = "bash" | "zsh" | "fish";

export interface CommandSpec {
  name: string;
  flags: string[];
  /** The first positional argument is a sessionKey. */
  takesKey: boolean;
}

const NAME = "openclaw-sessions";

function bash(cmds: CommandSpec[]): string {
  const cases = cmds.map((c) => `    ${c.name}) opts="${c.flags.join(" ")}" ;;`).join("\n");
  const keyCmds = cmds.filter((c) => c.takesKey).map((c) => c.name).join("|");
  return `# bash completion for ${NAME} (source it, or save as /etc/bash_completion.d/${NAME})
_openclaw_sessions() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" cmd="\${COMP_WORDS[1]}" opts=""
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=( $(compgen -W "${cmds.map((c) => c.name).join(" ")}" -- "$cur") )
    return
  fi
  case "$cmd" in
${cases}
  esac
  if [[ "$cur" == -* ]]; then
    COMPREPLY=( $(compgen -W "$opts" -- "$cur") )
    return
  fi
  case "$cmd" in
    ${keyCmds || "__none__"})
      local IFS=$'\\n'
      # keys contain ":"; complete on the whole word, then trim what bash already shows
      local word="$cur" i=$COMP_CWORD
      while [ "$i" -gt 2 ] && [[ "\${COMP_WORDS[i-1]}" == ":" || "$word" == :* || "\${COMP_WORDS[i-1]}" == *: ]]; do
        i=$((i-1)); word="\${COMP_WORDS[i]}$word"
      done
      COMPREPLY=( $(compgen -W "$(${NAME} __complete keys 2>/dev/null)" -- "$word") )
      if [ "$word" != "$cur" ]; then
        local prefix="\${word%"$cur"}" j
        for j in "\${!COMPREPLY[@]}"; do COMPREPLY[j]="\${COMPREPLY[j]#"$prefix"}"; done
      fi
      ;;
  esac
}
complete -o default -F _openclaw_sessions ${NAME}
`;
}

function zsh(cmds: CommandSpec[]): string {
  const cases = cmds.map((c) => `    ${c.name}) compadd -- ${c.flags.join(" ")} ;;`).join("\n");
  const keyCmds = cmds.filter((c) => c.takesKey).map((c) => c.name).join("|");
  return `#compdef ${NAME}
# zsh completion for ${NAME} (save as _${NAME} in a directory of $fpath, or source it)
_openclaw_sessions() {
  if (( CURRENT == 2 )); then
    compadd -- ${cmds.map((c) => c.name).join(" ")}
    return
  fi
  local cmd=\${words[2]}
  if [[ $PREFIX == -* ]]; then
    case $cmd in
${cases}
    esac
    return
  fi
  case $cmd in
    ${keyCmds || "__none__"}) compadd -- \${(f)"$(${NAME} __complete keys 2>/dev/null)"} ;;
  esac
}
if (( $+functions[compdef] )); then compdef _openclaw_sessions ${NAME}; fi
`;
}

function fish(cmds: CommandSpec[]): string {
  const lines = [
    `# fish completion for ${NAME} (save as ~/.config/fish/completions/${NAME}.fish)`,
    `complete -c ${NAME} -f`,
    `complete -c ${NAME} -n __fish_use_subcommand -a "${cmds.map((c) => c.name).join(" ")}"`,
  ];
  for (const c of cmds) {
    for (const f of c.flags.filter((x) => x.startsWith("--"))) {
      lines.push(`complete -c ${NAME} -n "__fish_seen_subcommand_from ${c.name}" -l ${f.slice(2)}`);
    }
  }
  const keyCmds = cmds.filter((c) => c.takesKey).map((c) => c.name);
  if (keyCmds.length) {
    lines.push(`complete -c ${NAME} -n "__fish_seen_subcommand_from ${keyCmds.join(" ")}" -a "(${NAME} __complete keys 2>/dev/null)"`);
  }
  return `${lines.join("\n")}\n`;
}

export function completionScript(shell: Shell, cmds: CommandSpec[]): string {
  return shell === "bash" ? bash(cmds) : shell === "zsh" ? zsh(cmds) : fish(cmds);
}
