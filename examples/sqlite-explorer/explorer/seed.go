package explorer

// schemaSQL returns the statements that create the library's tables. Dates
// are ISO 8601 text, so that they read back as the strings they were written
// as. (Functions rather than package variables: the package keeps no mutable
// state.)
func schemaSQL() []string {
	return []string{
		`CREATE TABLE authors (
		id      INTEGER PRIMARY KEY,
		name    TEXT NOT NULL,
		born    INTEGER,
		country TEXT
	)`,
		`CREATE TABLE books (
		id        INTEGER PRIMARY KEY,
		title     TEXT NOT NULL,
		author_id INTEGER NOT NULL REFERENCES authors(id),
		published INTEGER,
		genre     TEXT,
		copies    INTEGER NOT NULL DEFAULT 1
	)`,
		`CREATE TABLE loans (
		id          INTEGER PRIMARY KEY,
		book_id     INTEGER NOT NULL REFERENCES books(id),
		borrower    TEXT NOT NULL,
		loaned_on   TEXT NOT NULL,
		due_on      TEXT NOT NULL,
		returned_on TEXT
	)`,
		`CREATE INDEX books_author ON books(author_id)`,
		`CREATE INDEX loans_book ON loans(book_id)`,
	}
}

// The seed: 10 authors, 24 books and 14 loans, always the same.

type seedAuthor struct {
	id      int64
	name    string
	born    int
	country string
}

type seedBook struct {
	id        int64
	title     string
	author    int64
	published int
	genre     string
	copies    int
}

type seedLoan struct {
	id       int64
	book     int64
	borrower string
	loaned   string
	due      string
	returned string // "" while the book is out
}

func seedAuthors() []seedAuthor {
	return []seedAuthor{
		{1, "Jane Austen", 1775, "United Kingdom"},
		{2, "Charles Dickens", 1812, "United Kingdom"},
		{3, "Mark Twain", 1835, "United States"},
		{4, "Leo Tolstoy", 1828, "Russia"},
		{5, "Fyodor Dostoevsky", 1821, "Russia"},
		{6, "Mary Shelley", 1797, "United Kingdom"},
		{7, "Herman Melville", 1819, "United States"},
		{8, "Jules Verne", 1828, "France"},
		{9, "George Eliot", 1819, "United Kingdom"},
		{10, "Virginia Woolf", 1882, "United Kingdom"},
	}
}

func seedBooks() []seedBook {
	return []seedBook{
		{1, "Pride and Prejudice", 1, 1813, "novel", 3},
		{2, "Emma", 1, 1815, "novel", 2},
		{3, "Persuasion", 1, 1817, "novel", 1},
		{4, "Oliver Twist", 2, 1838, "novel", 2},
		{5, "A Christmas Carol", 2, 1843, "novella", 4},
		{6, "Great Expectations", 2, 1861, "novel", 2},
		{7, "The Adventures of Tom Sawyer", 3, 1876, "novel", 2},
		{8, "Adventures of Huckleberry Finn", 3, 1884, "novel", 3},
		{9, "War and Peace", 4, 1869, "novel", 1},
		{10, "Anna Karenina", 4, 1878, "novel", 2},
		{11, "Crime and Punishment", 5, 1866, "novel", 2},
		{12, "The Brothers Karamazov", 5, 1880, "novel", 1},
		{13, "Frankenstein", 6, 1818, "gothic", 3},
		{14, "The Last Man", 6, 1826, "science fiction", 1},
		{15, "Moby-Dick", 7, 1851, "novel", 2},
		{16, "Bartleby, the Scrivener", 7, 1853, "short story", 1},
		{17, "Twenty Thousand Leagues Under the Seas", 8, 1870, "adventure", 2},
		{18, "Around the World in Eighty Days", 8, 1872, "adventure", 3},
		{19, "Journey to the Center of the Earth", 8, 1864, "science fiction", 1},
		{20, "Middlemarch", 9, 1871, "novel", 1},
		{21, "Silas Marner", 9, 1861, "novel", 2},
		{22, "Mrs Dalloway", 10, 1925, "novel", 2},
		{23, "To the Lighthouse", 10, 1927, "novel", 1},
		{24, "Orlando", 10, 1928, "novel", 1},
	}
}

func seedLoans() []seedLoan {
	return []seedLoan{
		{1, 1, "Amara Okafor", "2025-01-06", "2025-01-27", "2025-01-20"},
		{2, 13, "Jonas Lindqvist", "2025-01-09", "2025-01-30", "2025-02-03"},
		{3, 9, "Priya Raman", "2025-01-15", "2025-02-19", "2025-02-14"},
		{4, 5, "Amara Okafor", "2025-02-01", "2025-02-22", "2025-02-10"},
		{5, 18, "Mateo Alvarez", "2025-02-11", "2025-03-04", "2025-03-01"},
		{6, 15, "Chen Wei", "2025-02-20", "2025-03-13", ""},
		{7, 22, "Priya Raman", "2025-03-02", "2025-03-23", "2025-03-18"},
		{8, 11, "Jonas Lindqvist", "2025-03-05", "2025-03-26", ""},
		{9, 8, "Sofia Rossi", "2025-03-10", "2025-03-31", "2025-03-28"},
		{10, 20, "Chen Wei", "2025-03-17", "2025-04-21", ""},
		{11, 1, "Mateo Alvarez", "2025-03-24", "2025-04-14", "2025-04-09"},
		{12, 17, "Sofia Rossi", "2025-04-01", "2025-04-22", ""},
		{13, 6, "Amara Okafor", "2025-04-03", "2025-04-24", ""},
		{14, 13, "Priya Raman", "2025-04-07", "2025-04-28", ""},
	}
}
