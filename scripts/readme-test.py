#!/usr/bin/env python3
"""Runs the console blocks of README.md (and any other Markdown file given) as written.

Every ```console block of a file runs in order, in one fresh directory and one bash session
(so `cd`, `export` and background jobs carry over from block to block), with the `ferry` just
built first on PATH. A line starting with `$ ` is a command (a trailing backslash continues it);
the lines after it, up to the next command, are what it must print (stdout and stderr together).

What may differ between runs is normalized on both sides before comparing: replica ids, hashes,
tokens, clock stamps, dates, durations and ports. In the expected text, `…` stands for anything
on its line, and a line holding only `…` for any number of lines; the directory the blocks run
in is written /tmp/readme-demo, and ports 8080 and 8090 are free ports. `pocketbase` from
scripts/install-test-tools.sh is on PATH too (.build/test-tools/bin). A block preceded by
`<!-- readme-test: skip -->` is not run (say why next to it).

    python3 scripts/readme-test.py                  # README.md
    python3 scripts/readme-test.py README.md docs/IMPORT.md
    FERRY_BIN_DIR=.build/release python3 scripts/readme-test.py

Exit status: 0 when every command printed what the file shows, 1 otherwise (each difference is
printed with the file and line of the command), 2 for a usage problem.
"""

import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SKIP_MARK = "<!-- readme-test: skip"


class Command:
    def __init__(self, text, expected, line):
        self.text = text
        self.expected = expected
        self.line = line


def blocks(path):
    """The console blocks of a Markdown file: lists of Commands."""
    with open(path, encoding="utf-8") as handle:
        lines = handle.read().split("\n")
    result = []
    index = 0
    while index < len(lines):
        if lines[index].strip() == "```console":
            skip = index > 0 and lines[index - 1].strip().startswith(SKIP_MARK)
            index += 1
            commands = []
            while index < len(lines) and lines[index].strip() != "```":
                line = lines[index]
                if line.startswith("$ "):
                    start = index + 1
                    text = line[2:]
                    while text.endswith("\\") and index + 1 < len(lines):
                        index += 1
                        text = text[:-1] + "\n" + lines[index]
                    commands.append(Command(text, [], start))
                elif commands:
                    commands[-1].expected.append(line)
                index += 1
            if not skip:
                result.append(commands)
        index += 1
    return result


PATTERNS = [
    (re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"), "<uuid>"),
    (re.compile(r"\b[0-9a-f]{64}\b"), "<hex>"),
    (re.compile(r"\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?Z?"), "<time>"),
    (re.compile(r"\b1\d{12}\.\d+\b"), "<hlc>"),
    (re.compile(r"\(\d+ ms\)"), "(<ms>)"),
    (re.compile(r'"durationSeconds":[0-9.e-]+'), '"durationSeconds":<n>'),
    (re.compile(r"\b[0-9a-f]{8}\b"), "<short>"),
]


def normalize(text):
    for pattern, replacement in PATTERNS:
        text = pattern.sub(replacement, text)
    return text


def expected_pattern(lines):
    """A regular expression for what a command must print."""
    parts = []
    for line in lines:
        if line.strip() == "…":
            parts.append(r"(?:[^\n]*\n)*?")
            continue
        # A hash or id cut short with an ellipsis: any hex continues it.
        line = re.sub(r"\b[0-9a-f]{6,}-?…", "<hexcut>", line)
        pieces = [re.escape(normalize(piece)) for piece in line.split("…")]
        text = "[^\n]*".join(pieces).replace(re.escape("<hexcut>"), r"[0-9a-z<>-]*")
        text = text.replace(re.escape("<short>"), r"<short>")
        parts.append(text + r"[ \t]*\n")
    return "^" + "".join(parts) + "$"


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Shell:
    """One bash session in `directory`; runs a command and returns what it printed."""

    def __init__(self, directory, environment):
        self.directory = directory
        self.process = subprocess.Popen(
            ["bash", "--noprofile", "--norc"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            cwd=directory, env=environment, text=True, bufsize=1)
        self.background = 0

    def run(self, text, expected_lines, timeout=120):
        marker = "__readme_test_%d__" % time.monotonic_ns()
        if text.rstrip().endswith("&"):
            # A background job (a server): its output goes to a file; wait until it printed as
            # many lines as the file shows, then hand them over.
            self.background += 1
            log = os.path.join(self.directory, ".readme-test-job-%d.log" % self.background)
            # The job's process ids are kept, to stop it when the file is done.
            script = "{ %s ; } > %s 2>&1 &\n__readme_jobs+=($!)\necho %s\n" % (text.rstrip()[:-1], log, marker)
            self.process.stdin.write(script)
            self.process.stdin.flush()
            self._read_until(marker, timeout)
            deadline = time.monotonic() + 20
            wanted = len([line for line in expected_lines if line.strip()])
            content = ""
            while time.monotonic() < deadline:
                try:
                    with open(log, encoding="utf-8", errors="replace") as handle:
                        content = handle.read()
                except FileNotFoundError:
                    content = ""
                if content.count("\n") >= wanted:
                    break
                time.sleep(0.1)
            return content
        self.process.stdin.write("{ %s\n} 2>&1\necho %s\n" % (text, marker))
        self.process.stdin.flush()
        return self._read_until(marker, timeout)

    def _read_until(self, marker, timeout):
        output = []
        deadline = time.monotonic() + timeout
        while True:
            line = self.process.stdout.readline()
            if not line:
                raise RuntimeError("the shell ended")
            if line.rstrip("\n") == marker:
                return "".join(output)
            if line.rstrip("\n").endswith(marker):
                # The command's last line had no newline (`curl -s` of JSON): the marker
                # followed it on the same line. Take that line as if it ended.
                output.append(line.rstrip("\n")[: -len(marker)] + "\n")
                return "".join(output)
            output.append(line)
            if time.monotonic() > deadline:
                raise RuntimeError("timed out")

    def close(self):
        try:
            self.process.stdin.write(
                'for job in "${__readme_jobs[@]}"; do pkill -TERM -P "$job" 2>/dev/null; kill "$job" 2>/dev/null; done; '
                'wait 2>/dev/null; exit\n')
            self.process.stdin.flush()
            self.process.wait(timeout=15)
        except Exception:
            self.process.kill()


def check_file(path, bin_dir):
    directory = tempfile.mkdtemp(prefix="ferry-readme-")
    environment = {key: value for key, value in os.environ.items() if not key.startswith("FERRY_")}
    environment["PATH"] = bin_dir + os.pathsep + os.path.join(ROOT, ".build", "test-tools", "bin") + os.pathsep + environment.get("PATH", "")
    environment["FERRY_SAMPLE_DATA"] = os.path.join(ROOT, "SampleData")
    environment["LC_ALL"] = "C.UTF-8"
    port = str(free_port())
    second_port = str(free_port())
    while second_port == port:
        second_port = str(free_port())
    shutil.copytree(os.path.join(ROOT, "SampleData"), os.path.join(directory, "SampleData"))
    shell = Shell(directory, environment)
    failures = 0
    total = 0
    try:
        for commands in blocks(path):
            for command in commands:
                total += 1
                text = command.text.replace("8080", port).replace("8090", second_port)
                expected = [line.replace("8080", port).replace("8090", second_port) for line in command.expected]
                while expected and not expected[-1].strip():
                    expected.pop()
                try:
                    actual = shell.run(text, expected)
                except RuntimeError as error:
                    print("%s:%d: $ %s\n  %s" % (path, command.line, command.text, error))
                    return failures + 1, total
                # The file writes the directory the blocks run in as /tmp/readme-demo.
                normalized = normalize(actual.replace(directory, "/tmp/readme-demo"))
                if not normalized.endswith("\n") and normalized:
                    normalized += "\n"
                if not re.match(expected_pattern(expected), normalized, re.DOTALL if False else 0):
                    failures += 1
                    print("%s:%d: $ %s" % (path, command.line, command.text))
                    print("  expected:\n    " + "\n    ".join(expected or ["(nothing)"]))
                    print("  printed:\n    " + "\n    ".join(actual.rstrip("\n").split("\n") if actual else ["(nothing)"]))
    finally:
        shell.close()
        shutil.rmtree(directory, ignore_errors=True)
    return failures, total


def main(arguments):
    if any(argument in ("-h", "--help") for argument in arguments):
        print(__doc__.strip())
        return 0
    files = arguments or [os.path.join(ROOT, "README.md")]
    bin_dir = os.environ.get("FERRY_BIN_DIR")
    if not bin_dir:
        built = subprocess.run(["swift", "build", "--product", "ferry"], cwd=ROOT)
        if built.returncode != 0:
            print("error: swift build failed", file=sys.stderr)
            return 1
        bin_dir = subprocess.run(
            ["swift", "build", "--show-bin-path"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    bin_dir = os.path.abspath(bin_dir)
    if not os.path.exists(os.path.join(bin_dir, "ferry")):
        print("error: no ferry in %s" % bin_dir, file=sys.stderr)
        return 2
    failures = 0
    for path in files:
        if not os.path.exists(path):
            print("error: %s does not exist" % path, file=sys.stderr)
            return 2
        failed, total = check_file(path, bin_dir)
        failures += failed
        print("%s: %d command%s, %s" % (
            os.path.relpath(path, ROOT), total, "" if total == 1 else "s",
            "all printed what the file shows" if failed == 0 else "%d differ" % failed))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
