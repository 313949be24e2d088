module github.com/mcpbind/mcpbind

go 1.26
