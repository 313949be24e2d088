package main

import "github.com/spf13/cobra"

// completionExample is the Example block of `mcpbind completion` (name
// "completion") or of its subcommand for the shell name.
func completionExample(name string) string {
	switch name {
	case "completion":
		return `  source <(mcpbind completion bash)
  mcpbind completion zsh > "${fpath[1]}/_mcpbind"
  mcpbind completion fish > ~/.config/fish/completions/mcpbind.fish`
	case "bash":
		return `  source <(mcpbind completion bash)
  mcpbind completion bash > /etc/bash_completion.d/mcpbind`
	case "zsh":
		return `  source <(mcpbind completion zsh)
  mcpbind completion zsh > "${fpath[1]}/_mcpbind"`
	case "fish":
		return `  mcpbind completion fish | source
  mcpbind completion fish > ~/.config/fish/completions/mcpbind.fish`
	case "powershell":
		return `  mcpbind completion powershell | Out-String | Invoke-Expression
  mcpbind completion powershell >> $PROFILE`
	}
	return ""
}

// addCompletionCmd adds cobra's `completion bash|zsh|fish|powershell`
// command, which prints a shell completion script to stdout, with examples.
func addCompletionCmd(root *cobra.Command) {
	root.InitDefaultCompletionCmd()
	for _, cmd := range root.Commands() {
		if cmd.Name() != "completion" {
			continue
		}
		cmd.Example = completionExample("completion")
		for _, sub := range cmd.Commands() {
			sub.Example = completionExample(sub.Name())
		}
	}
}
