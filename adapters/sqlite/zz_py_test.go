package sqlite

import (
	"context"
	osexec "os/exec"
	"testing"
)

func TestPythonInterop(t *testing.T) {
	path := testPath(t)
	py := func(code string) string {
		out, err := osexec.Command("python3", "-c", "import sqlite3,sys\ndb=sqlite3.connect(sys.argv[1])\n"+code+"\ndb.commit()\ndb.close()", path).CombinedOutput()
		if err != nil {
			t.Fatalf("python: %v\n%s", err, out)
		}
		return string(out)
	}
	py(`db.execute("CREATE TABLE sessions(id TEXT PRIMARY KEY,cwd TEXT NOT NULL,model TEXT NOT NULL,protocol TEXT NOT NULL,stage TEXT NOT NULL DEFAULT 'idle')")
db.execute("INSERT INTO sessions(id,cwd,model,protocol) VALUES(?,?,?,?)", ("legacy","/w","m","responses"))`)
	s, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Log(py(`print(db.execute("SELECT cwd, provider, title, created_at FROM sessions WHERE id=?", ("legacy",)).fetchone())`))
	// while open
	py(`db.execute("INSERT INTO paperclips(topic,message,cwd,session) VALUES('bug','ghost vent','/w','no-such-session')")`)
	s.Close()
	py(`db.execute("INSERT INTO paperclips(topic,message,cwd) VALUES('bug','sessionless vent','/w')")`)
	s = openStore(t, path)
	vents, err := s.Vents(context.Background(), 0, 0)
	t.Logf("%+v %v", vents, err)
	t.Log(py(`print(db.execute("PRAGMA journal_mode").fetchone(), db.execute("SELECT * FROM paperclips").fetchall())`))
}
