"""Host calls: the daemon's functions a cell awaits, declared by the run
request and answered by reply frames."""

import unittest

from kernelproc import KernelTestCase

STAMP = {"name": "stamp", "doc": "Stamps a label.", "params": [{"name": "label"}, {"name": "extra", "optional": True}]}
VENT = {"name": "vent", "params": [{"name": "topic"}, {"name": "message"}]}
READ = {"name": "skills.read", "doc": "Reads a skill.", "params": [{"name": "name"}, {"name": "file", "optional": True}]}
FILES = {"name": "skills.files", "params": [{"name": "name"}]}


class HostCallsTest(KernelTestCase):
    def answering(self, answer):
        """An on_event that answers each call frame with answer(call),
        a ("result", value) or ("error", text) pair; it keeps the calls."""
        calls = []

        def on_event(event):
            if event["type"] != "call":
                return
            calls.append(event)
            key, value = answer(event)
            self.kernel.send({"type": "reply", "id": event["id"], key: value})

        return calls, on_event

    def test_a_declared_call_is_an_async_global_whose_reply_is_its_result(self):
        calls, on_event = self.answering(lambda call: ("result", {"stamped": call["args"]["label"], "n": 1}))
        done, _, _ = self.kernel.ok("await stamp('release')", host_calls=[STAMP], on_event=on_event)
        self.assertEqual(done["value"], "{'stamped': 'release', 'n': 1}")
        self.assertEqual([(c["name"], c["args"]) for c in calls], [("stamp", {"label": "release"})])

    def test_arguments_go_by_position_or_name_and_optional_ones_left_out_are_absent(self):
        calls, on_event = self.answering(lambda call: ("result", None))
        self.kernel.ok("await stamp('a', 2)\nawait stamp(extra=[1], label='b')\nawait stamp(label='c')", host_calls=[STAMP], on_event=on_event)
        self.assertEqual([c["args"] for c in calls], [{"label": "a", "extra": 2}, {"label": "b", "extra": [1]}, {"label": "c"}])
        self.assertEqual(len({c["id"] for c in calls}), 3)

    def test_an_error_reply_raises_host_error_with_albedo_s_message(self):
        calls, on_event = self.answering(lambda call: ("error", "vent refused: the topic is unknown"))
        done, _, _ = self.kernel.ok(
            "try:\n    await vent('nope', 'text')\nexcept HostError as e:\n    caught = (str(e), isinstance(e, RuntimeError))\ncaught",
            host_calls=[VENT],
            on_event=on_event,
        )
        self.assertEqual(done["value"], "('vent refused: the topic is unknown', True)")

    def test_wrong_arguments_fail_in_the_cell_and_reach_no_host(self):
        self.kernel.ok("1", host_calls=[STAMP])
        for code, message in (
            ("await stamp()", "missing required argument(s): label"),
            ("await stamp('a', 2, 3)", "takes 2 positional arguments but 3 were given"),
            ("await stamp('a', label='b')", "got multiple values for argument 'label'"),
            ("await stamp('a', colour='red')", "got an unexpected keyword argument 'colour'"),
            ("await stamp(object())", "arguments must be JSON values"),
        ):
            done, _, events = self.kernel.run(code)
            self.assertEqual(done["exception"], "TypeError", code)
            self.assertIn(message, done["error"], code)
            self.assertEqual(events, [], code)

    def test_declarations_last_until_replaced_by_new_ones(self):
        calls, on_event = self.answering(lambda call: ("result", call["name"]))
        self.kernel.ok("1", host_calls=[STAMP])
        self.assertEqual(self.kernel.value("await stamp('x')", on_event=on_event), "'stamp'")  # no host_calls: kept
        done, _, _ = self.kernel.run("stamp", host_calls=[VENT])
        self.assertEqual(done["exception"], "NameError")
        self.assertEqual(self.kernel.value("await vent('bug', 'm')", on_event=on_event), "'vent'")

    def test_a_cell_s_own_global_of_that_name_is_not_removed(self):
        self.kernel.ok("1", host_calls=[STAMP])
        self.kernel.ok("stamp = 'mine'")
        self.assertEqual(self.kernel.value("stamp", host_calls=[VENT]), "'mine'")

    def test_a_declaration_named_like_a_helper_leaves_the_helper_and_stays_reachable_through_host(self):
        calls, on_event = self.answering(lambda call: ("result", call["args"]))
        bad = [{"name": "run"}, {"name": "not a name"}, STAMP]
        self.assertEqual(self.kernel.value("run.__doc__.split('\\n')[0]", host_calls=bad), repr("Starts cmd in the background and returns its Job at once."))
        self.assertEqual(self.kernel.value("await _host('run', cmd='x')", on_event=on_event), "{'cmd': 'x'}")
        self.assertEqual(self.kernel.value("callable(stamp)"), "True")  # the valid one is offered

    def test_a_call_shows_its_signature_and_doc(self):
        doc = self.kernel.value("stamp.__doc__", host_calls=[STAMP])
        self.assertEqual(doc, repr("stamp(label, extra=None)\n\nStamps a label."))
        self.assertEqual(self.kernel.value("stamp.__name__"), "'stamp'")

    def test_calls_made_together_are_settled_by_their_ids(self):
        pending = []

        def on_event(event):
            if event["type"] == "call":
                pending.append(event)
            if len(pending) == 2:  # answer in the other order
                for call in reversed(pending):
                    self.kernel.send({"type": "reply", "id": call["id"], "result": call["args"]["label"]})
                pending.clear()

        value = self.kernel.value("import asyncio\nawait asyncio.gather(stamp('first'), stamp('second'))", host_calls=[STAMP], on_event=on_event)
        self.assertEqual(value, "['first', 'second']")


if __name__ == "__main__":
    unittest.main()


class HostGroupsTest(KernelTestCase):
    answering = HostCallsTest.answering

    def test_a_dotted_name_is_an_async_method_of_a_group_global(self):
        calls, on_event = self.answering(lambda call: ("result", [call["name"], call["args"]]))
        self.kernel.ok("1", host_calls=[READ, FILES, STAMP])
        self.assertEqual(self.kernel.value("await skills.read('pdf')", on_event=on_event), "['skills.read', {'name': 'pdf'}]")
        self.assertEqual(self.kernel.value("await skills.read('pdf', file='a.md')", on_event=on_event), "['skills.read', {'name': 'pdf', 'file': 'a.md'}]")
        self.assertEqual(self.kernel.value("await skills.files(name='pdf')", on_event=on_event), "['skills.files', {'name': 'pdf'}]")
        self.assertEqual(self.kernel.value("skills"), repr("<albedo host calls skills: files, read>").strip("'"))
        self.assertEqual(self.kernel.value("skills.read.__doc__.split('\\n')[0]"), repr("skills.read(name, file=None)"))
        done, _, _ = self.kernel.run("await skills.read()")
        self.assertIn("skills.read() missing required argument(s): name", done["error"])

    def test_groups_go_with_their_declarations(self):
        self.kernel.ok("1", host_calls=[READ])
        done, _, _ = self.kernel.run("skills", host_calls=[STAMP])
        self.assertEqual(done["exception"], "NameError")

    def test_a_name_taken_as_a_group_and_a_function_keeps_the_first(self):
        self.kernel.ok("1", host_calls=[READ, {"name": "skills"}, {"name": "a.b.c"}])
        self.assertEqual(self.kernel.value("type(skills).__name__"), "'HostGroup'")
        self.assertEqual(self.kernel.value("'a' in globals()"), "False")


CALL = {"name": "mcp.call", "doc": "Calls an MCP tool.", "params": [{"name": "tool"}, {"name": "arguments", "keywords": True}]}
TOOLS = {"name": "mcp.tools", "params": [{"name": "server", "optional": True}]}


class HostKeywordsTest(KernelTestCase):
    answering = HostCallsTest.answering

    def test_a_keywords_parameter_takes_every_keyword_argument_even_one_named_like_another(self):
        calls, on_event = self.answering(lambda call: ("result", {"text": "hi", "isError": False}))
        self.kernel.ok("1", host_calls=[CALL, TOOLS])
        value = self.kernel.value("r = await mcp.call('fs/read', path='a', tool=1)\n(r['text'], await mcp.call('fs/list'))", on_event=on_event)
        self.assertEqual(value, "('hi', {'text': 'hi', 'isError': False})")
        self.assertEqual(
            [(c["name"], c["args"]) for c in calls],
            [("mcp.call", {"tool": "fs/read", "arguments": {"path": "a", "tool": 1}}), ("mcp.call", {"tool": "fs/list", "arguments": {}})],
        )
        self.assertEqual(self.kernel.value("mcp.call.__doc__.split('\\n')[0]"), repr("mcp.call(tool, /, **arguments)"))

    def test_the_parameters_before_keywords_go_by_position_only(self):
        self.kernel.ok("1", host_calls=[CALL])
        done, _, _ = self.kernel.run("await mcp.call()")
        self.assertIn("missing required argument(s): tool", done["error"])
        done, _, _ = self.kernel.run("await mcp.call('a/b', 'c')")
        self.assertIn("takes 1 positional arguments but 2 were given", done["error"])

    def test_a_failed_call_raises_host_error(self):
        _, on_event = self.answering(lambda call: ("error", 'MCP server "fs" did not answer calling read within callTimeoutMs (50)'))
        self.kernel.ok("1", host_calls=[CALL])
        value = self.kernel.value("try:\n    await mcp.call('fs/read')\nexcept HostError as e:\n    caught = str(e)\ncaught", on_event=on_event)
        self.assertIn("callTimeoutMs", value)
