#!/usr/bin/env python3
"""Checks that each target's imports and its declared dependencies in Package.swift
match: a module imported without being declared builds only by luck (another target
pulled it in), and a dependency never imported is dead weight. It also holds the module
picture of docs/contributing.md: no edge points back up (the storage protocol knows no
database, the PostgreSQL driver knows no engine, only the SQLite driver links GRDB).
Run by .ci/run.

    python3 scripts/check-imports.py        # exit status 1 and a line per mismatch
"""
import json
import os
import re
import subprocess
import sys

# Modules of the toolchain and the system, never declared.
SYSTEM = {"Foundation", "FoundationEssentials", "Glibc", "Musl", "Darwin", "Dispatch", "Synchronization",
          "Testing", "XCTest", "_Concurrency", "os", "Observation", "_FoundationICU"}
# Products whose modules have other names (product -> modules it brings).
PRODUCT_MODULES = {"Metrics": {"Metrics", "CoreMetrics"}, "GRDBSQLite": {"GRDBSQLite", "SQLite3"}}
# Dependencies that are there for the build, not for an import: the tests run the
# `parley` binary, so they depend on it.
BUILD_ONLY = {("ParleyShellTests", "parley")}

# The module picture: what each layer may never depend on, directly.
DATABASES = {"GRDB", "GRDBSQLite", "PostgresNIO", "ParleySQLite", "ParleyPostgres"}
FRONT_ENDS = {"ParleyServer", "ParleyIRC", "ParleyClient", "ParleyShell", "ParleyBots", "ParleyCommands", "parley"}
FORBIDDEN = {
    "ParleyCore": DATABASES | FRONT_ENDS | {"ParleyStore", "ParleyLive", "ParleyEngine", "ParleyProtocol"},
    "ParleyLive": DATABASES | FRONT_ENDS | {"ParleyStore", "ParleyEngine"},
    "ParleyStore": DATABASES | FRONT_ENDS | {"ParleyLive", "ParleyEngine"},
    "ParleySQLite": FRONT_ENDS | {"ParleyEngine", "ParleyPostgres"},
    "ParleyPostgres": FRONT_ENDS | {"ParleyEngine", "ParleySQLite", "GRDB", "GRDBSQLite"},
    "ParleyEngine": DATABASES | FRONT_ENDS | {"ParleyProtocol"},
    "ParleyProtocol": DATABASES | FRONT_ENDS | {"ParleyStore", "ParleyLive", "ParleyEngine"},
    "ParleyServer": DATABASES | {"ParleyIRC", "ParleyClient", "ParleyShell", "ParleyBots", "ParleyCommands", "parley"},
    "ParleyIRC": DATABASES | {"ParleyServer", "ParleyClient", "ParleyShell", "ParleyBots", "ParleyCommands", "parley"},
    "ParleyClient": DATABASES | {"ParleyServer", "ParleyShell", "ParleyBots", "ParleyEngine", "ParleyStore", "ParleyCommands", "parley"},
    # The bot host owns its state's protocol (`BotState`); whoever embeds it says where
    # the state is kept, so neither the host nor the shell knows a database.
    "ParleyBots": DATABASES | {"ParleyServer", "ParleyIRC", "ParleyShell", "ParleyEngine", "ParleyStore", "ParleyCommands", "parley"},
    "ParleyShell": DATABASES | {"ParleyServer", "ParleyIRC", "ParleyEngine", "ParleyStore", "ParleyCommands", "parley"},
}
# Only the SQLite driver links GRDB among the product's modules.
GRDB_ALLOWED = {"ParleySQLite"}

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
package = json.loads(subprocess.run(["swift", "package", "dump-package"], cwd=root, capture_output=True, text=True, check=True).stdout)
multiline_string = re.compile(r'#*"""[\s\S]*?"""#*')
import_line = re.compile(r"^\s*(?:@[\w(]+[^\n]*?\s+)?(?:public |package |internal |private |fileprivate )?import (?:(?:struct|class|enum|protocol|func|var|typealias) )?([A-Za-z_][A-Za-z0-9_]*)", re.M)

problems = []
for target in package["targets"]:
    if target["type"] == "system":
        continue
    name = target["name"]
    default = os.path.join("Tests" if target["type"] == "test" else "Sources", name)
    folder = os.path.join(root, target.get("path") or default)
    imported = set()
    for directory, _, files in os.walk(folder):
        for file in files:
            if file.endswith(".swift"):
                with open(os.path.join(directory, file), encoding="utf-8") as source:
                    # A multi-line string may hold another language's program (a test's
                    # Python endpoint): its imports are not the target's.
                    code = multiline_string.sub("", source.read())
                    imported |= set(import_line.findall(code))
    declared = {}
    for dependency in target["dependencies"]:
        kind, value = next(iter(dependency.items()))
        dep = value[0]
        declared[dep] = PRODUCT_MODULES.get(dep, {dep})
    provided = set().union(*declared.values()) if declared else set()
    for module in sorted(imported - provided - SYSTEM - {name}):
        problems.append(f"{name} imports {module} without declaring it in Package.swift")
    for dep, modules in sorted(declared.items()):
        if not modules & imported and (name, dep) not in BUILD_ONLY:
            problems.append(f"{name} declares {dep} and never imports it")
    for dep in sorted(set(declared) & FORBIDDEN.get(name, set())):
        problems.append(f"{name} depends on {dep}, against the module picture in docs/contributing.md")
    if target["type"] != "test" and "GRDB" in declared and name not in GRDB_ALLOWED:
        problems.append(f"{name} depends on GRDB: only ParleySQLite may")

for problem in problems:
    print(problem)
sys.exit(1 if problems else 0)
