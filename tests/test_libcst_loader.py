"""LibCST as devlint loads it (devlint/engine/libcst_loader.py): each name of the package imported when first read.

What devlint leaves out is its own start-up only: whoever reads a name of `libcst` gets LibCST's own object, the
package's `__init__` runs as a plain import would for any other name, and another library in the same process (a
flake8 plugin that uses LibCST) finds the whole of LibCST. Each case runs in a fresh interpreter: this one has
imported LibCST already, and then `load_libcst()` leaves it alone.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

from conftest import ROOT

# What `libcst/__init__.py` imports that devlint never uses.
UNUSED = ("libcst.metadata", "libcst.helpers", "libcst.codemod", "libcst.matchers", "libcst._parser.detect_config")


def run(*parts: str) -> str:
    code = "\n".join(textwrap.dedent(part) for part in parts)
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                            env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=120)
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout


DESCRIBE = """
def describe(value):
    if isinstance(value, type) or callable(value):
        return f"{getattr(value, '__module__', '?')}.{getattr(value, '__qualname__', repr(value))}"
    return repr(value)
"""


def test_every_name_of_the_package_is_libcsts_own():
    plain = json.loads(run(DESCRIBE, """
        import json, libcst
        print(json.dumps({name: describe(getattr(libcst, name)) for name in [*libcst.__all__, "LIBCST_VERSION"]}))
    """))
    loaded = json.loads(run(DESCRIBE, """
        import json
        from devlint.engine.libcst_loader import load_libcst
        load_libcst()
        import libcst
        print(json.dumps({name: describe(getattr(libcst, name)) for name in %s}))
    """ % json.dumps(sorted(plain))))
    assert loaded == plain


def test_devlint_leaves_out_what_it_does_not_use():
    loaded = json.loads(run("""
        import json, sys
        from devlint.engine.libcst_loader import load_libcst
        from devlint.engine.engine import analyze
        load_libcst()
        found = analyze("import torch\\n\\ndef f_step(d):\\n    return torch.zeros(3).to(d)\\n", "m.py")
        libcst_modules = sorted(m for m in sys.modules if m.startswith("libcst"))
        print(json.dumps([[d.code for d in found.diagnostics], libcst_modules]))
    """))
    codes, modules = loaded
    assert codes == ["DEV002"]
    assert "libcst._nodes.expression" in modules
    assert [m for m in modules if m.startswith(UNUSED)] == []


def test_another_library_finds_the_whole_of_libcst_after_devlint():
    out = run("""
        from devlint.engine.libcst_loader import load_libcst
        from devlint.engine.engine import analyze
        load_libcst()
        assert analyze("import torch\\ndef step():\\n    return torch.zeros(3).cuda()\\n", "m.py").diagnostics
        # what a flake8 plugin built on LibCST does, after devlint checked a file in the same process
        import libcst as cst
        import libcst.matchers as m
        from libcst import *  # noqa
        from libcst.codemod import CodemodContext, VisitorBasedCodemodCommand
        module = cst.parse_module("import torch\\nx = torch.load(p)\\n")
        wrapper = cst.MetadataWrapper(module)
        scopes = wrapper.resolve(cst.metadata.ScopeProvider)
        positions = wrapper.resolve(cst.metadata.PositionProvider)
        call = wrapper.module.body[1].body[0].value
        assert m.matches(call, m.Call(func=m.Attribute(attr=m.Name("load"))))
        assert positions[call].start.line == 2 and scopes[call] is not None

        class Rename(VisitorBasedCodemodCommand):
            def leave_Name(self, original, updated):
                return updated.with_changes(value="t") if updated.value == "torch" else updated

        renamed = Rename(CodemodContext()).transform_module(module)
        assert renamed.code == "import t\\nx = t.load(p)\\n", renamed.code
        assert "MetadataWrapper" in dir(cst) and cst.ensure_type(call, cst.Call) is call
        print("ok")
    """)
    assert out.strip() == "ok"


def test_a_libcst_imported_before_is_left_as_it_is():
    out = run("""
        import sys, libcst
        from devlint.engine.libcst_loader import load_libcst
        load_libcst()
        print(sys.modules["libcst"] is libcst and "libcst.metadata" in sys.modules)
    """)
    assert out.strip() == "True"


def test_names_read_from_several_threads_at_once_are_libcsts_own():
    out = run("""
        import threading
        from devlint.engine.libcst_loader import load_libcst
        load_libcst()
        import libcst
        names = ["Name", "Call", "Module", "If", "Comma", "SimpleWhitespace", "CSTVisitor", "parse_module",
                 "MetadataWrapper", "LIBCST_VERSION", "ensure_type"] * 4
        got, errors = {}, []

        def read(name):
            try:
                got[name] = getattr(libcst, name)
            except Exception as error:
                errors.append(repr(error))

        threads = [threading.Thread(target=read, args=(name,)) for name in names]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        import libcst._nodes.expression as expression
        assert not errors, errors
        assert got["Name"] is expression.Name and got["MetadataWrapper"].__name__ == "MetadataWrapper"
        print("ok")
    """)
    assert out.strip() == "ok"


def test_a_thread_importing_a_submodule_meanwhile_never_finds_the_package_half_made():
    # Each try in a process of its own, the two threads released together: one reads the names a plain import binds
    # last (`LIBCST_VERSION`, `__all__`), the other imports what a flake8 plugin would (`libcst.codemod`).
    out = run("""
        import os, threading
        from devlint.engine.libcst_loader import load_libcst
        load_libcst()
        failed = 0
        for _ in range(16):
            child = os.fork()
            if child == 0:
                import libcst
                errors, start = [], threading.Barrier(2)

                def read():
                    start.wait()
                    try:
                        assert libcst.LIBCST_VERSION and "MetadataWrapper" in libcst.__all__
                    except BaseException as error:
                        errors.append(repr(error))

                def import_codemod():
                    start.wait()
                    try:
                        import libcst.codemod
                        assert libcst.codemod.CodemodContext
                    except BaseException as error:
                        errors.append(repr(error))

                threads = [threading.Thread(target=read), threading.Thread(target=import_codemod)]
                for thread in threads:
                    thread.start()
                for thread in threads:
                    thread.join()
                os._exit(1 if errors else 0)
            failed += os.waitpid(child, 0)[1] != 0
        print(failed)
    """)
    assert out.strip() == "0"


def test_submodules_are_there_as_after_a_plain_import():
    plain = run("""
        import libcst
        print(sorted(name for name in ("metadata", "helpers", "_nodes", "codemod", "matchers", "tool", "native")
                     if hasattr(libcst, name)))
    """)
    loaded = run("""
        from devlint.engine.libcst_loader import load_libcst
        load_libcst()
        import libcst
        print(sorted(name for name in ("metadata", "helpers", "_nodes", "codemod", "matchers", "tool", "native")
                     if hasattr(libcst, name)))
    """)
    assert loaded == plain
