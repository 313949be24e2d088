package explorer

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	_ "modernc.org/sqlite" // registers the "sqlite" driver (pure Go, no cgo)
)

// DatabaseFile is the name of the database file that [Open] creates inside
// its folder.
const DatabaseFile = "library.db"

// Store is a small lending library kept in one SQLite database file. It
// holds two connection pools on that file: a read-write one for
// [Store.InsertRow] and the schema, and a read-only one (SQLite URI
// parameter mode=ro, and PRAGMA query_only) for everything else, so that
// [Store.Query] cannot change the data whatever SQL it is given.
type Store struct {
	path string
	rw   *sql.DB
	ro   *sql.DB
}

// Open opens (creating it if needed) the database file [DatabaseFile] in dir.
// On first use it creates the tables authors, books and loans and fills them
// with the same seed data every time.
func Open(ctx context.Context, dir string) (*Store, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("database folder: %w", err)
	}
	path, err := filepath.Abs(filepath.Join(dir, DatabaseFile))
	if err != nil {
		return nil, fmt.Errorf("database path: %w", err)
	}
	rw, err := sql.Open("sqlite", dsn(path, false, "foreign_keys(1)", "busy_timeout(5000)"))
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	s := &Store{path: path, rw: rw}
	if err := s.init(ctx); err != nil {
		rw.Close()
		return nil, fmt.Errorf("initialise %s: %w", path, err)
	}
	s.ro, err = sql.Open("sqlite", dsn(path, true, "query_only(1)", "busy_timeout(5000)"))
	if err != nil {
		rw.Close()
		return nil, fmt.Errorf("open %s read-only: %w", path, err)
	}
	return s, nil
}

// dsn is the modernc.org/sqlite data source name of the file at path, opened
// read-only when readOnly is set, with one PRAGMA statement per new
// connection for each of pragmas. (The journal stays in the default
// rollback mode: read-only connections to a WAL database need write access
// to its -shm file.)
func dsn(path string, readOnly bool, pragmas ...string) string {
	q := url.Values{"_pragma": pragmas}
	if readOnly {
		q.Set("mode", "ro")
	}
	u := url.URL{Scheme: "file", OmitHost: true, Path: filepath.ToSlash(path), RawQuery: q.Encode()}
	return u.String()
}

// Path is the absolute path of the database file.
func (s *Store) Path() string { return s.path }

// Close closes both connection pools.
func (s *Store) Close() error {
	return errors.Join(s.ro.Close(), s.rw.Close())
}

// init creates and seeds the tables unless the file already has them.
func (s *Store) init(ctx context.Context) error {
	tx, err := s.rw.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'authors'`).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return nil
	}
	for _, stmt := range schemaSQL() {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("%s: %w", stmt, err)
		}
	}
	for _, a := range seedAuthors() {
		if _, err := tx.ExecContext(ctx, `INSERT INTO authors (id, name, born, country) VALUES (?, ?, ?, ?)`, a.id, a.name, a.born, a.country); err != nil {
			return err
		}
	}
	for _, b := range seedBooks() {
		if _, err := tx.ExecContext(ctx, `INSERT INTO books (id, title, author_id, published, genre, copies) VALUES (?, ?, ?, ?, ?, ?)`, b.id, b.title, b.author, b.published, b.genre, b.copies); err != nil {
			return err
		}
	}
	for _, l := range seedLoans() {
		var returned any
		if l.returned != "" {
			returned = l.returned
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO loans (id, book_id, borrower, loaned_on, due_on, returned_on) VALUES (?, ?, ?, ?, ?, ?)`, l.id, l.book, l.borrower, l.loaned, l.due, returned); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// Tables lists the user tables, sorted by name.
func (s *Store) Tables(ctx context.Context) ([]string, error) {
	rows, err := s.ro.QueryContext(ctx, `SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\_%' ESCAPE '\' ORDER BY name`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	names := []string{}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, err
		}
		names = append(names, name)
	}
	return names, rows.Err()
}

// checkTable returns an error naming the existing tables when table is not
// one of them.
func (s *Store) checkTable(ctx context.Context, table string) error {
	tables, err := s.Tables(ctx)
	if err != nil {
		return err
	}
	for _, t := range tables {
		if t == table {
			return nil
		}
	}
	if table == "" {
		return fmt.Errorf("no table given; the tables are: %s", strings.Join(tables, ", "))
	}
	return fmt.Errorf("unknown table %q; the tables are: %s", table, strings.Join(tables, ", "))
}

// CountRows counts the rows of table.
func (s *Store) CountRows(ctx context.Context, table string) (int64, error) {
	if err := s.checkTable(ctx, table); err != nil {
		return 0, err
	}
	var n int64
	err := s.ro.QueryRowContext(ctx, `SELECT count(*) FROM `+quoteIdent(table)).Scan(&n)
	return n, err
}

// Describe lists the columns of table in declaration order.
func (s *Store) Describe(ctx context.Context, table string) (TableDescription, error) {
	if err := s.checkTable(ctx, table); err != nil {
		return TableDescription{}, err
	}
	rows, err := s.ro.QueryContext(ctx, `SELECT name, type, "notnull", pk FROM pragma_table_info(?) ORDER BY cid`, table)
	if err != nil {
		return TableDescription{}, err
	}
	defer rows.Close()
	d := TableDescription{Table: table, Columns: []Column{}}
	for rows.Next() {
		var c Column
		var pk int
		if err := rows.Scan(&c.Name, &c.Type, &c.NotNull, &pk); err != nil {
			return TableDescription{}, err
		}
		c.PrimaryKey = pk > 0
		d.Columns = append(d.Columns, c)
	}
	return d, rows.Err()
}

// FindRow returns the row of table whose key is id, or nil when there is
// none. The key is the table's single primary key column, else its rowid.
func (s *Store) FindRow(ctx context.Context, table string, id int64) (*Row, error) {
	d, err := s.Describe(ctx, table)
	if err != nil {
		return nil, err
	}
	key := "rowid"
	var pks []string
	for _, c := range d.Columns {
		if c.PrimaryKey {
			pks = append(pks, c.Name)
		}
	}
	if len(pks) == 1 {
		key = quoteIdent(pks[0])
	}
	rows, err := s.ro.QueryContext(ctx, `SELECT * FROM `+quoteIdent(table)+` WHERE `+key+` = ?`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	if !rows.Next() {
		return nil, rows.Err()
	}
	values, err := scanRow(rows, len(cols))
	if err != nil {
		return nil, err
	}
	row := make(Row, len(cols))
	for i, c := range cols {
		row[c] = values[i]
	}
	return &row, rows.Err()
}

// InsertRow inserts one row into table, values mapping column names to
// values, and returns the new row's rowid.
func (s *Store) InsertRow(ctx context.Context, table string, values map[string]any) (int64, error) {
	d, err := s.Describe(ctx, table)
	if err != nil {
		return 0, err
	}
	known := make(map[string]bool, len(d.Columns))
	var names []string
	for _, c := range d.Columns {
		known[c.Name] = true
		names = append(names, c.Name)
	}
	var cols, marks []string
	var args []any
	for _, c := range d.Columns { // declaration order: deterministic SQL
		v, ok := values[c.Name]
		if !ok {
			continue
		}
		arg, err := sqlValue(v)
		if err != nil {
			return 0, fmt.Errorf("column %q: %w", c.Name, err)
		}
		cols = append(cols, quoteIdent(c.Name))
		marks = append(marks, "?")
		args = append(args, arg)
	}
	for name := range values {
		if !known[name] {
			return 0, fmt.Errorf("table %q has no column %q; its columns are: %s", table, name, strings.Join(names, ", "))
		}
	}
	stmt := `INSERT INTO ` + quoteIdent(table) + ` DEFAULT VALUES`
	if len(cols) > 0 {
		stmt = `INSERT INTO ` + quoteIdent(table) + ` (` + strings.Join(cols, ", ") + `) VALUES (` + strings.Join(marks, ", ") + `)`
	}
	res, err := s.rw.ExecContext(ctx, stmt, args...)
	if err != nil {
		return 0, err
	}
	return res.LastInsertId()
}

// Query runs one SQL statement with params bound to its placeholders and
// returns every row. The statement runs on the read-only pool inside a
// transaction that is always rolled back (which also rules out VACUUM INTO
// and ATTACH); more than one statement is refused, since the driver would
// run them all.
func (s *Store) Query(ctx context.Context, query string, params []any) (QueryResult, error) {
	if strings.TrimSpace(query) == "" {
		return QueryResult{}, errors.New("empty SQL statement")
	}
	if err := singleStatement(query); err != nil {
		return QueryResult{}, err
	}
	args := make([]any, len(params))
	for i, p := range params {
		a, err := sqlValue(p)
		if err != nil {
			return QueryResult{}, fmt.Errorf("params[%d]: %w", i, err)
		}
		args[i] = a
	}
	tx, err := s.ro.BeginTx(ctx, nil)
	if err != nil {
		return QueryResult{}, err
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return QueryResult{}, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return QueryResult{}, err
	}
	res := QueryResult{Columns: cols, Rows: [][]any{}}
	if res.Columns == nil {
		res.Columns = []string{}
	}
	for rows.Next() {
		values, err := scanRow(rows, len(cols))
		if err != nil {
			return QueryResult{}, err
		}
		res.Rows = append(res.Rows, values)
	}
	if err := rows.Err(); err != nil {
		return QueryResult{}, err
	}
	res.RowCount = len(res.Rows)
	return res, nil
}

// singleStatement returns an error when query holds more than one SQL
// statement: anything but blanks, comments and semicolons after a semicolon
// that is not inside a string, a quoted identifier or a comment.
func singleStatement(query string) error {
	ended := false
	for i := 0; i < len(query); {
		rest := query[i:]
		switch c := query[i]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			i++
			continue
		case strings.HasPrefix(rest, "--"):
			i += skipPast(rest, "\n")
			continue
		case strings.HasPrefix(rest, "/*"):
			i += 2 + skipPast(rest[2:], "*/")
			continue
		case c == ';':
			ended = true
			i++
			continue
		}
		if ended {
			return errors.New("only one SQL statement per call: remove everything after the first ';'")
		}
		switch c := query[i]; c {
		case '\'', '"', '`': // string or quoted identifier; a doubled quote escapes it
			j := i + 1
			for j < len(query) && (query[j] != c || j+1 < len(query) && query[j+1] == c) {
				if query[j] == c {
					j++
				}
				j++
			}
			i = j + 1
		case '[': // [identifier]
			i += skipPast(rest, "]")
		default:
			i++
		}
	}
	return nil
}

// skipPast is the length of s up to and including the first end, or len(s).
func skipPast(s, end string) int {
	if j := strings.Index(s, end); j >= 0 {
		return j + len(end)
	}
	return len(s)
}

// scanRow reads the current row as JSON-ready values: integers, floats,
// strings and nil; text stored as a blob becomes a string.
func scanRow(rows *sql.Rows, n int) ([]any, error) {
	values := make([]any, n)
	ptrs := make([]any, n)
	for i := range values {
		ptrs[i] = &values[i]
	}
	if err := rows.Scan(ptrs...); err != nil {
		return nil, err
	}
	for i, v := range values {
		if b, ok := v.([]byte); ok && utf8.Valid(b) {
			values[i] = string(b)
		}
	}
	return values, nil
}

// sqlValue converts a value decoded from JSON arguments (with
// json.Decoder.UseNumber) into a value the SQLite driver binds.
func sqlValue(v any) (any, error) {
	switch v := v.(type) {
	case nil, string, bool:
		return v, nil
	case json.Number:
		if i, err := v.Int64(); err == nil {
			return i, nil
		}
		f, err := v.Float64()
		if err != nil {
			return nil, fmt.Errorf("number %s out of range", v)
		}
		return f, nil
	case float64, int64:
		return v, nil
	case []any:
		return nil, errors.New("an array cannot be bound: use a string, number, boolean or null")
	case map[string]any:
		return nil, errors.New("an object cannot be bound: use a string, number, boolean or null")
	default:
		return nil, fmt.Errorf("a %T cannot be bound: use a string, number, boolean or null", v)
	}
}

// quoteIdent quotes an SQL identifier.
func quoteIdent(name string) string {
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}
