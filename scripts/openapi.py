#!/usr/bin/env python3
"""Writes docs/openapi.yaml into the two Swift files the server serves it from
(`ParleyServer.openAPIDocument`): edit the YAML, run this, build. `OpenAPITests` fails
when the served document and docs/openapi.yaml differ.

    python3 scripts/openapi.py
"""
import os

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
with open(os.path.join(root, "docs/openapi.yaml"), encoding="utf-8") as file:
    document = file.read()
split = document.index("\ncomponents:\n") + 1
parts = {
    "Sources/ParleyServer/ParleyServer+OpenAPI.swift": document[:split],
    "Sources/ParleyServer/ParleyServer+OpenAPIComponents.swift": document[split:],
}
for path, part in parts.items():
    assert '"""#' not in part
    with open(os.path.join(root, path), encoding="utf-8") as file:
        swift = file.read()
    start = swift.index('#"""\n') + len('#"""\n')
    end = swift.index('"""#')
    end = swift.rindex("\n", 0, end) + 1
    # Indented with the literal (the closing delimiter's indentation is not the string's).
    body = "".join("        " + line if line.strip() else line for line in part.splitlines(keepends=True))
    with open(os.path.join(root, path), "w", encoding="utf-8") as file:
        file.write(swift[:start] + body + "        " + swift[swift.index('"""#'):])
