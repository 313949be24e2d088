package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/mcpbind/mcpbind/composition"
	"github.com/mcpbind/mcpbind/examples/insights/insights"
	"github.com/mcpbind/mcpbind/examples/insights/memory"
	"github.com/mcpbind/mcpbind/examples/insights/sqliteexplorer"
	"github.com/mcpbind/mcpbind/export"
)

// connectDownstream connects the servers "sqlite-explorer" and "memory" of
// the servers config at path, telling server-memory to keep its graph in
// memFile (an absolute path), and returns their clients and a function that
// closes both sessions.
//
// TODO(lead): replaced by composition.LoadRegistry + FromRegistry once the
// registry lands.
func connectDownstream(ctx context.Context, path, memFile string, stderr io.Writer) (insights.Downstream, func(), error) {
	cfg, err := export.LoadConfig(path)
	if err != nil {
		return insights.Downstream{}, nil, err
	}
	servers, err := cfg.Select("sqlite-explorer", "memory")
	if err != nil {
		return insights.Downstream{}, nil, err
	}
	sessions := map[string]*composition.Session{}
	closeAll := func() {
		for _, s := range sessions {
			s.Close()
		}
	}
	for _, sc := range servers {
		t, err := sc.Resolve(os.LookupEnv)
		if err != nil {
			closeAll()
			return insights.Downstream{}, nil, err
		}
		opts := append(t.Options, composition.WithStderr(stderr))
		if sc.ID == "memory" {
			opts = append(opts, composition.WithEnv("MEMORY_FILE_PATH="+memFile))
		}
		cctx, cancel := ctx, context.CancelFunc(func() {})
		if t.Timeout > 0 {
			cctx, cancel = context.WithTimeout(ctx, t.Timeout)
		}
		s, err := composition.Connect(cctx, t.Transport, opts...)
		cancel()
		if err != nil {
			closeAll()
			return insights.Downstream{}, nil, fmt.Errorf("server %q of %s: %w", sc.ID, path, export.RedactError(err, t.Secrets))
		}
		sessions[sc.ID] = s
	}
	return insights.Downstream{
		DB:     sqliteexplorer.NewClient(sessions["sqlite-explorer"]),
		Memory: memory.NewClient(sessions["memory"]),
	}, closeAll, nil
}
