"""tardy's options in a job: bad values and misspelt names warned about once, TARDY_ENABLE=0."""
from run import Room, binary, expect, with_run

room = Room("config")


def test_bad_option(env, needle, profile=True):
    @with_run([binary("exits"), "return", "0"], 2, env)
    def _(run):
        expect(run.rc == 0, "exit %d" % run.rc)
        expect(needle in run.err, "no warning %r in: %s" % (needle, run.err[-800:]))
        expect(run.err.count(needle) == 1, "warning printed %d times" % run.err.count(needle))
        expect((run.profile is not None) == profile, "profile written: %s" % run.nprofiles)


def test_disabled():
    @with_run([binary("exits"), "print", "0"], 2, {"TARDY_ENABLE": "0"})
    def _(run):
        expect(run.rc == 0 and run.nprofiles == 0 and not run.summary,
               "TARDY_ENABLE=0 still wrote a profile or summary")
        expect(run.out.count("line") == 5, "output")


room.case("config/bad integer", lambda: test_bad_option({"TARDY_DEPTH": "abc"}, "TARDY_DEPTH=abc"))
room.case("config/out of range", lambda: test_bad_option({"TARDY_DEPTH": "99"}, "TARDY_DEPTH=99"))
room.case("config/misspelt option", lambda: test_bad_option(
    {"TARDY_DEPHT": "4"}, "did you mean TARDY_DEPTH?"))
room.case("config/unwritable profile directory", lambda: test_bad_option(
    {"TARDY_PROFILE": "/nonexistent/dir"}, "no profile written", profile=False))
room.case("config/TARDY_ENABLE=0", test_disabled)
