#!/usr/bin/env python3
"""The feature table: each feature's file on every floor, checked.

    python3 scripts/features.py             # prints each feature's files, floor by floor; checks
    python3 scripts/features.py --markdown  # the table docs/contributing.md carries

A feature has one name on every floor: `Ignore` is `IgnoreService` (what a client can
ask), done by `EngineSession+Ignore`, kept behind `IgnoreStore` by
`SQLiteChatStore+Ignore` and `PostgresChatStore+Ignore`, and tested on both drivers by
a test that runs `StoreKind.all`. It fails (exit 1) when:

- a floor's file is missing, or a slice protocol in Slices/ is in no feature;
- a requirement of a service slice has no `func` of its name in the feature's engine
  file, or one of a store slice none in either store's file;
- ChatService or ChatStore does not compose every slice of its floor;
- a store slice's test does not run on both drivers, or calls nothing of the feature;
- docs/contributing.md's table is not the one printed by --markdown.
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SERVICE = "Sources/ParleyCore/Service/Slices/{}Service.swift"
STORE = "Sources/ParleyStore/Slices/{}Store.swift"
SQLITE = "Sources/ParleySQLite/SQLiteChatStore+{}.swift"
POSTGRES = "Sources/ParleyPostgres/PostgresChatStore+{}.swift"
SESSION = "Sources/ParleyEngine/Session/EngineSession+{}.swift"
TESTS = "Tests/ParleyEngineTests/{}.swift"

# feature: (engine files, extra store files, tests, why there is no service slice)
FEATURES = {
    "Accounts": ([SESSION.format("Accounts")], [], ["AccountTests"], None),
    "Guests": ([SESSION.format("Guests")], [], ["GuestTests"], None),
    "Phone": ([SESSION.format("Phone")], [], ["PhoneSignInTests"], None),
    "Identity": ([SESSION.format("Identity")], [], ["IdentitySignInTests"], None),
    "Signup": ([SESSION.format("Signup")], [], ["RegistrationModeTests"], None),
    "Activity": ([SESSION.format("Activity")], [], ["ActivityTests"], None),
    "Watch": ([SESSION.format("Watch")], [], ["PresenceWatchTests"], None),
    "Messages": ([SESSION.format("Messages")], [], ["MessageTests"], None),
    "Edits": ([SESSION.format("Edits")], [], ["ConversationTests"], None),
    "Media": ([SESSION.format("Media")], [], ["MediaTests"], None),
    "Members": ([SESSION.format("Members")], ["Sources/ParleySQLite/SQLiteChatStore+ChatList.swift"], ["GroupTests", "DirectChatTests"], None),
    "Groups": ([SESSION.format("Groups")], [], ["GroupModeTests"], None),
    "Invites": ([SESSION.format("Invites")], [], ["GroupTests"], None),
    "BotTokens": ([SESSION.format("BotTokens")], [], ["BotTokenTests"], None),
    "BotCommands": ([SESSION.format("BotCommands")], [], ["BotCommandListTests"], None),
    "Reminders": ([SESSION.format("Reminders"), "Sources/ParleyEngine/Live/ChatEngine+Reminders.swift"], [], ["ReminderTests"], None),
    "Ignore": ([SESSION.format("Ignore")], [], ["IgnoreTests"], None),
    "Reports": ([SESSION.format("Reports")], [], ["ReportTests"], None),
    "Operators": ([SESSION.format("Operators"), "Sources/ParleyEngine/Operators/ChatEngine+Operators.swift"], [], ["OperatorTests"], None),
    "Export": ([SESSION.format("Export")], [], ["ErasureTests"], None),
    "Erasure": ([SESSION.format("Erasure")], [], ["ErasureTests"], None),
    "Retention": (["Sources/ParleyEngine/Operators/ChatEngine+Retention.swift"], [], ["RetentionTests"], "the server's own sweep"),
    "Threads": ([SESSION.format("Threads")], [], ["ThreadTests"], None),
    "Hooks": (
        ["Sources/ParleyEngine/Hooks/EngineSession+Hooks.swift", "Sources/ParleyEngine/Hooks/ChatEngine+OutgoingHooks.swift"],
        [],
        ["HookTests", "OutgoingHookTests"],
        None,
    ),
}


def read(path):
    with open(os.path.join(ROOT, path), encoding="utf-8") as file:
        return file.read()


def exists(path):
    return os.path.exists(os.path.join(ROOT, path))


def requirements(path):
    """The names of the functions a protocol file declares (its requirements)."""
    return sorted(set(re.findall(r"^    (?:@\w+\s+)*func (\w+)", read(path), re.M)))


def defines(paths, name):
    return any(re.search(rf"func {name}\b", read(path)) for path in paths if exists(path))


def floors(feature):
    engine, extra, tests, no_service = FEATURES[feature]
    service = None if no_service else SERVICE.format(feature)
    stores = [SQLITE.format(feature), POSTGRES.format(feature)] + extra
    return service, engine, STORE.format(feature), stores, [TESTS.format(test) for test in tests], no_service


def check():
    problems = []
    for feature in FEATURES:
        service, engine, store, stores, tests, _ = floors(feature)
        for path in ([service] if service else []) + engine + [store] + stores + tests:
            if not exists(path):
                problems.append(f"{feature}: no {path}")
        if problems:
            continue
        if service:
            for name in requirements(service):
                if not defines(engine, name):
                    problems.append(f"{feature}: {feature}Service.{name} is not in {', '.join(engine)}")
        verbs = set(requirements(store)) | (set(requirements(service)) if service else set())
        for name in requirements(store):
            for path in stores[:2]:
                if not defines([path] + stores[2:], name):
                    problems.append(f"{feature}: {feature}Store.{name} is not in {path}")
        for path in tests:
            text = read(path)
            if "arguments: StoreKind.all" not in text:
                problems.append(f"{feature}: {path} does not run on both drivers (StoreKind.all)")
            engine_verbs = set()
            for file in engine:
                engine_verbs |= set(re.findall(r"^    (?:public )?func (\w+)", read(file), re.M))
            if not any(re.search(rf"\.{name}\(", text) for name in verbs | engine_verbs):
                problems.append(f"{feature}: {path} calls nothing of the feature")
    for floor, directory, suffix, composites in [
        (
            "service",
            "Sources/ParleyCore/Service/Slices",
            "Service",
            ["Sources/ParleyCore/Service/ChatService.swift", "Sources/ParleyCore/Service/GatewayService.swift"],
        ),
        ("store", "Sources/ParleyStore/Slices", "Store", ["Sources/ParleyStore/ChatStore.swift"]),
    ]:
        composed = set()
        for composite in composites:
            declared = re.search(r"public protocol \w+:\s*([\w,\s]+)\{", read(composite)).group(1)
            composed |= {name.strip() for name in declared.split(",")}
        composite = " or ".join(composites)
        for file in sorted(os.listdir(os.path.join(ROOT, directory))):
            name = file.removesuffix(".swift")
            if name.removesuffix(suffix) not in FEATURES:
                problems.append(f"{directory}/{file}: a {floor} slice in no feature")
            if name not in composed:
                problems.append(f"{composite} does not compose {name}")
    return problems


def markdown():
    rows = [
        "| Feature | Service (`ParleyCore/Service/Slices`) | Engine (`ParleyEngine`) | Store (`ParleyStore/Slices`) "
        + "| SQLite / PostgreSQL | Both-driver tests |",
        "|---|---|---|---|---|---|",
    ]
    for feature in FEATURES:
        service, engine, _, stores, tests, no_service = floors(feature)
        name = lambda path: "`" + os.path.basename(path).removesuffix(".swift") + "`"
        service_cell = f"`{feature}Service`" if service else f"— ({no_service})"
        engine_cell = ", ".join(name(path) for path in engine)
        store_cell = ", ".join(name(path) for path in stores)
        tests_cell = ", ".join(name(path) for path in tests)
        rows.append(f"| {feature} | {service_cell} | {engine_cell} | `{feature}Store` | {store_cell} | {tests_cell} |")
    return "\n".join(rows)


def main():
    if "--markdown" in sys.argv:
        print(markdown())
        return 0
    for feature in FEATURES:
        service, engine, store, stores, tests, no_service = floors(feature)
        print(feature)
        print(f"  service  {service or '— (' + no_service + ')'}")
        for path in engine:
            print(f"  engine   {path}")
        print(f"  store    {store}")
        for path in stores:
            print(f"  driver   {path}")
        for path in tests:
            print(f"  tests    {path}")
    problems = check()
    table = markdown()
    if table not in read("docs/contributing.md"):
        problems.append("docs/contributing.md does not carry the table --markdown prints")
    for problem in problems:
        print("features: " + problem, file=sys.stderr)
    if not problems:
        service_max = max(len(requirements(SERVICE.format(f))) for f in FEATURES if FEATURES[f][3] is None)
        store_max = max(len(requirements(STORE.format(f))) for f in FEATURES)
        print(f"{len(FEATURES)} features; the largest service slice has {service_max} verbs, the largest store slice {store_max}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
