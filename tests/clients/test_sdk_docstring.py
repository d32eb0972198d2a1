"""Issue 15 item 12: the SDK's module docstring example runs as written, against a real server."""
from __future__ import annotations

import contextlib
import io

import clients.sdk


def docstring_example() -> str:
    """The indented code block of clients/sdk.py's module docstring, dedented."""
    lines = clients.sdk.__doc__.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("    "))
    block = []
    for line in lines[start:]:
        if line and not line.startswith("    "):
            break
        block.append(line[4:])
    return "\n".join(block).strip() + "\n"


def test_item12_sdk_docstring_example_runs(server):
    code = docstring_example()
    assert 'Client("127.0.0.1:50051", "pompeii")' in code
    out = io.StringIO()
    namespace = {"Client": clients.sdk.Client}
    with contextlib.redirect_stdout(out):
        exec(compile(code.replace("127.0.0.1:50051", server.target), "clients/sdk.py docstring", "exec"),
             namespace)
    assert namespace["status"].over
    assert out.getvalue().strip().startswith("[")  # the winners the example prints
    namespace["client"].close()
