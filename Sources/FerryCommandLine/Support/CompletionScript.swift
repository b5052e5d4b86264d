/// Shell completion scripts for `ferry`, made from the command table: every command's name,
/// and each command's options (`--help` included), so a new command or option completes with
/// no script to edit.
///
/// ```swift
/// let script = CompletionScript(commands: FerryCommand.all.map { $0.spec }).text(for: .bash)
/// ```
struct CompletionScript {
    /// The shells a script is made for.
    enum Shell: String, CaseIterable {
        case bash, zsh, fish
    }

    let commands: [CommandSpec]

    /// The global options every command takes.
    static let globalOptions = ["--help", "--version", "--quiet", "--verbose"]

    private var names: String { commands.map(\.name).joined(separator: " ") }

    private func options(of spec: CommandSpec) -> [String] {
        spec.options.map(\.displayName) + ["--help", "--quiet", "--verbose"]
    }

    /// The script for `shell`, to be sourced (bash, zsh) or saved in the completions folder (fish).
    func text(for shell: Shell) -> String {
        switch shell {
        case .bash: return bash
        case .zsh: return zsh
        case .fish: return fish
        }
    }

    private var bash: String {
        var cases = ""
        for spec in commands {
            cases += "        \(spec.name)) options=\"\(options(of: spec).joined(separator: " "))\" ;;\n"
        }
        return """
            # bash completion for ferry; made by 'ferry completions bash'.
            # Load it with: source <(ferry completions bash)
            _ferry() {
                local current=${COMP_WORDS[COMP_CWORD]}
                if [[ $COMP_CWORD -eq 1 ]]; then
                    COMPREPLY=($(compgen -W "\(names) \(Self.globalOptions.joined(separator: " "))" -- "$current"))
                    return
                fi
                local options=""
                case ${COMP_WORDS[1]} in
            \(cases)    esac
                if [[ $current == -* ]]; then
                    COMPREPLY=($(compgen -W "$options" -- "$current"))
                else
                    COMPREPLY=($(compgen -f -- "$current"))
                fi
            }
            complete -o filenames -F _ferry ferry

            """
    }

    private var zsh: String {
        var cases = ""
        for spec in commands {
            cases += "        \(spec.name)) _arguments '*:file:_files' \(options(of: spec).map { "'\($0)'" }.joined(separator: " ")) ;;\n"
        }
        let described = commands.map { "'\($0.name):\(zshEscaped($0.abstract))'" }.joined(separator: " ")
        return """
            #compdef ferry
            # zsh completion for ferry; made by 'ferry completions zsh'.
            # Load it with: source <(ferry completions zsh), or save it as _ferry in your $fpath.
            _ferry() {
                if (( CURRENT == 2 )); then
                    local -a commands
                    commands=(\(described))
                    _describe 'command' commands
                    return
                fi
                case $words[2] in
            \(cases)    esac
            }
            compdef _ferry ferry

            """
    }

    private var fish: String {
        var lines = [
            "# fish completion for ferry; made by 'ferry completions fish'.",
            "# Save it as ~/.config/fish/completions/ferry.fish",
            "complete -c ferry -f",
        ]
        for spec in commands {
            lines.append("complete -c ferry -n __fish_use_subcommand -a \(spec.name) -d '\(fishEscaped(spec.abstract))'")
            for option in spec.options {
                lines.append(
                    "complete -c ferry -n '__fish_seen_subcommand_from \(spec.name)' -l \(option.name) -d '\(fishEscaped(option.help))'"
                        + (option.takesValue ? " -r -F" : ""))
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private func zshEscaped(_ text: String) -> String {
        text.replacingOccurrences(of: "'", with: "'\\''").replacingOccurrences(of: ":", with: "\\:")
    }

    private func fishEscaped(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'")
    }
}
