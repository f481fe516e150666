"""The trace of a cell: the files it read and wrote (activities) and the
paths whose state it changed (changes)."""

import os
import unittest

from kernelproc import KernelTestCase


def activities(done):
    return [(a["kind"], a["target"]) for a in done["trace"]["activities"]]


def changes(done):
    return [(c["kind"], c["path"]) for c in done["trace"]["changes"]]


class TracerTest(KernelTestCase):
    def trace(self, code):
        done, output, _ = self.kernel.run(code)
        self.assertEqual(done["status"], "ok", done.get("error"))
        return done

    def write(self, name, text="old"):
        with open(self.path(name), "w") as f:
            f.write(text)
        return self.path(name)

    def test_reading_a_file_is_a_read_and_no_change(self):
        notes = self.write("notes.txt")
        done = self.trace("open('notes.txt').read()")
        self.assertEqual(activities(done), [("read", notes)])
        self.assertEqual(changes(done), [])

    def test_a_missing_file_opened_for_reading_is_not_traced(self):
        done = self.kernel.run("open('missing.txt')")[0]
        self.assertEqual(done["exception"], "FileNotFoundError")
        self.assertEqual(done["trace"], {"activities": [], "changes": []})

    def test_creating_a_file_is_a_write_and_created(self):
        done = self.trace("with open('new.txt', 'w') as f:\n    f.write('hi')")
        self.assertEqual(activities(done), [("write", self.path("new.txt"))])
        self.assertEqual(changes(done), [("created", self.path("new.txt"))])

    def test_appending_is_modified_and_rewriting_the_same_bytes_too(self):
        log = self.write("log.txt")
        done = self.trace("with open('log.txt', 'a') as f:\n    f.write('more')")
        self.assertEqual(activities(done), [("write", log)])
        self.assertEqual(changes(done), [("modified", log)])
        # Truncated and written again with the same content: still modified,
        # even where mtime and size come out the same.
        done = self.trace("with open('log.txt', 'w') as f:\n    f.write('oldmore')")
        self.assertEqual(changes(done), [("modified", log)])

    def test_opening_for_update_is_a_read_and_a_write(self):
        data = self.write("data.txt")
        done = self.trace("with open('data.txt', 'r+') as f:\n    f.read()")
        self.assertEqual(activities(done), [("read", data), ("write", data)])
        self.assertEqual(changes(done), [])  # opened writable, left as it was

    def test_removing_is_a_write_and_deleted(self):
        gone = self.write("gone.txt")
        done = self.trace("import os\nos.remove('gone.txt')")
        self.assertEqual(activities(done), [("write", gone)])
        self.assertEqual(changes(done), [("deleted", gone)])

    def test_renaming_writes_both_names(self):
        old = self.write("a.txt")
        done = self.trace("import os\nos.rename('a.txt', 'b.txt')")
        self.assertEqual(activities(done), [("write", old), ("write", self.path("b.txt"))])
        self.assertEqual(changes(done), [("deleted", old), ("created", self.path("b.txt"))])

    def test_truncating_through_os_is_modified(self):
        big = self.write("big.txt", "x" * 100)
        done = self.trace("import os\nos.truncate('big.txt', 10)")
        self.assertEqual(activities(done), [("write", big)])
        self.assertEqual(changes(done), [("modified", big)])

    def test_links_are_writes_of_the_new_name(self):
        self.write("target.txt")
        done = self.trace("import os\nos.symlink('target.txt', 'link.txt')\nos.link('target.txt', 'hard.txt')")
        self.assertEqual(activities(done), [("write", self.path("link.txt")), ("write", self.path("hard.txt"))])
        self.assertEqual(changes(done), [("created", self.path("link.txt")), ("created", self.path("hard.txt"))])

    def test_a_made_folder_is_created_without_an_activity(self):
        done = self.trace("import os\nos.mkdir('sub')")
        self.assertEqual(activities(done), [])
        self.assertEqual(changes(done), [("created", self.path("sub"))])

    def test_paths_are_absolute_and_normalised_against_the_working_directory(self):
        os.mkdir(self.path("sub"))
        inner = self.write(os.path.join("sub", "inner.txt"))
        done = self.trace("import os\nos.chdir('sub')\nopen('./../sub//inner.txt').read()\nos.chdir('..')")
        self.assertEqual(activities(done), [("read", inner)])

    def test_a_dir_fd_relative_path_is_resolved_through_the_folder(self):
        os.mkdir(self.path("sub"))
        self.write(os.path.join("sub", "x.txt"))
        done = self.trace("import os\nfd = os.open('sub', os.O_RDONLY)\nos.remove('x.txt', dir_fd=fd)\nos.close(fd)")
        self.assertIn(("write", self.path("sub", "x.txt")), activities(done))
        self.assertEqual(changes(done), [("deleted", self.path("sub", "x.txt"))])

    def test_entries_keep_the_order_first_seen_without_repeats(self):
        a, b = self.write("a.txt"), self.write("b.txt")
        done = self.trace("for name in ['b.txt', 'a.txt', 'b.txt']:\n    open(name).read()")
        self.assertEqual(activities(done), [("read", b), ("read", a)])

    def test_each_kind_keeps_at_most_200_entries(self):
        done = self.trace("for i in range(250):\n    open('f%d.txt' % i, 'w').close()")
        self.assertEqual(len(done["trace"]["activities"]), 200)
        self.assertEqual(len(done["trace"]["changes"]), 200)
        self.assertEqual(done["trace"]["activities"][0]["target"], self.path("f0.txt"))

    def test_the_python_installation_proc_and_pycache_are_left_out(self):
        os.mkdir(self.path("__pycache__"))
        self.write(os.path.join("__pycache__", "cached.pyc"))
        done = self.trace(
            "import os, json\n"
            "open(json.__file__).read()\n"
            "open('/proc/self/status').read()\n"
            "open('/dev/null', 'w').write('x')\n"
            "open('__pycache__/cached.pyc').read()"
        )
        self.assertEqual(done["trace"], {"activities": [], "changes": []})

    def test_importing_a_workspace_module_reads_it(self):
        helper = self.write("helper_mod.py", "VALUE = 7\n")
        done = self.trace("import sys\nsys.path.insert(0, %r)\nimport helper_mod" % self.ws)
        self.assertIn(("read", helper), activities(done))

    def test_a_child_process_is_not_traced(self):
        done = self.trace("import subprocess\nsubprocess.run(['sh', '-c', 'echo x > child.txt'], check=True)")
        self.assertTrue(os.path.exists(self.path("child.txt")))
        self.assertNotIn(self.path("child.txt"), [t for _, t in activities(done)])
        self.assertEqual(changes(done), [])

    def test_a_trace_holds_only_its_own_cell(self):
        self.trace("open('one.txt', 'w').close()")
        done = self.trace("open('two.txt', 'w').close()")
        self.assertEqual(changes(done), [("created", self.path("two.txt"))])
        self.assertEqual(self.trace("1")["trace"], {"activities": [], "changes": []})

    def test_a_failing_cell_keeps_its_trace(self):
        done = self.kernel.run("open('made.txt', 'w').close()\nraise RuntimeError('after the write')")[0]
        self.assertEqual(done["status"], "error")
        self.assertEqual(changes(done), [("created", self.path("made.txt"))])


if __name__ == "__main__":
    unittest.main()
