#!/usr/bin/env python3
"""Check what the README and the book's pages say about the repository, where a program can check it.

  - Commands. Every command the pages show (in code blocks, and in `code` spans) that runs a program
    of this build (chNN_...), a script (scripts/...) or a make target: the program or script exists,
    and its --help lists every option the command gives it ("ch07_convolution --radius 4": the
    --help of ch07_convolution lists --radius); `make X`: the Makefile has the target X.
  - Promises about every program: a sentence "Every program takes `--a`, ..." (or "Every stage
    program also takes ...") holds for each such program of the build.
  - Paths. Every repository path the pages name in `code` (common/pmpp/cli.hpp, results/<gpu>/,
    scripts/grade) exists; <placeholders>, NN, DIR and FILE match anything. So does every folder of
    the README's Layout block, and every stage it lists for a chapter (chapters/<chapter>/<stage>.cu).
  - Absence. A sentence that says something is not recorded yet names it as a path in `code`, and
    no such file exists: "not recorded yet" with nothing to check is an error, since it cannot be
    kept true.
Programs are given as NAME=PATH (the build's executables); a program the pages name that this build
lacks is an error, unless a CMakeLists.txt of the chapters names it (built only where its libraries
are, e.g. MPI): then its options are not checked here, and a note says so.

Exit status 0 when every claim holds, 1 with one line per claim that does not. Python 3 standard
library only.
"""
import argparse
import glob
import os
import pathlib
import re
import subprocess
import sys

PROGRAM = re.compile(r"(?:\./)?(?:build/bin/)?(ch\d\d_[a-z0-9_]+)$")
SCRIPT = re.compile(r"(?:\./)?(scripts/[A-Za-z0-9_.-]+)$")
OPTION = re.compile(r"^(--[a-z][a-z0-9-]*)")
END_OF_COMMAND = {"|", "||", "&&", ";", ">", ">>", "2>", "2>&1", "#"}
PLACEHOLDER = re.compile(r"<[^<>]*>|\bNN\b|\bDIR\b|\bFILE\b|\*")
TOP_LEVEL = ("common", "chapters", "book", "scripts", "results", "profile", "tests", "exercises", "solutions",
             "grader", "notebooks", "cmake", ".ci")
ABSENCE = re.compile(r"\b(not|no|nothing)\b[^.]*\brecorded yet\b|\bnot yet recorded\b", re.IGNORECASE)
EVERY = re.compile(r"\b[Ee]very (stage program|program) (?:also )?(?:takes|accepts|has)\b([^.]*)")


def code_blocks(text):
    """(first line number, lines) of each fenced code block."""
    blocks, current, start = [], None, 0
    for number, line in enumerate(text.splitlines(), 1):
        if re.match(r"^\s*```", line):
            if current is None:
                current, start = [], number + 1
            else:
                blocks.append((start, current))
                current = None
        elif current is not None:
            current.append(line)
    return blocks


def prose(text):
    """The text outside fenced code blocks, with line numbers kept (code lines blanked)."""
    out, in_code = [], False
    for line in text.splitlines():
        if re.match(r"^\s*```", line):
            in_code = not in_code
            out.append("")
        else:
            out.append("" if in_code else line)
    return out


def code_spans(line):
    return re.findall(r"`([^`]+)`", line)


def commands(words):
    """(command, options) for each program, script or make target in a list of shell words."""
    found = []
    for k, word in enumerate(words):
        if word in ("make",) and k + 1 < len(words) and re.fullmatch(r"[a-z][a-z0-9_-]*", words[k + 1]):
            found.append(("make " + words[k + 1], []))
            continue
        match = PROGRAM.match(word) or SCRIPT.match(word)
        if not match:
            continue
        options = []
        for later in words[k + 1:]:
            if later in END_OF_COMMAND or later.startswith("#"):
                break
            option = OPTION.match(later)
            if option:
                options.append(option.group(1))
        found.append((match.group(1), options))
    return found


def shell_lines(lines):
    """Lines of a code block with continuations (a trailing backslash) joined, comments kept apart."""
    joined, pending = [], ""
    for line in lines:
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + " "
            continue
        joined.append(pending + line)
        pending = ""
    if pending:
        joined.append(pending)
    return joined


class Claims:
    def __init__(self, project, programs):
        self.project = project
        self.programs = programs
        self.helps = {}
        self.problems = []
        self.notes = []
        self.checked = 0
        self.makefile = (project / "Makefile").read_text(encoding="utf-8") if (project / "Makefile").is_file() else ""
        self.declared = "\n".join(p.read_text(encoding="utf-8", errors="replace")
                                  for p in (project / "chapters").rglob("CMakeLists.txt"))

    def problem(self, where, text):
        self.problems.append(f"{where}: {text}")

    def help_text(self, name):
        """What `NAME --help` prints (stdout and stderr), or None when NAME cannot be run here."""
        if name in self.helps:
            return self.helps[name]
        if name.startswith("scripts/"):
            path = self.project / name
        else:
            path = self.programs.get(name)
        text = None
        if path and pathlib.Path(path).is_file():
            env = dict(os.environ, CUDA_VISIBLE_DEVICES="")
            try:
                done = subprocess.run([str(path), "--help"], capture_output=True, text=True, timeout=60, env=env,
                                      cwd=self.project)
                text = done.stdout + done.stderr
            except (OSError, subprocess.TimeoutExpired) as error:
                text = f"<could not run: {error}>"
        self.helps[name] = text
        return text

    def command(self, where, name, options):
        self.checked += max(1, len(options))
        if name.startswith("make "):
            target = name.split()[1]
            if not re.search(rf"^{re.escape(target)}\s*:", self.makefile, re.MULTILINE):
                self.problem(where, f"'{name}': the Makefile has no target '{target}'")
            return
        if name.startswith("scripts/"):
            if not (self.project / name).is_file():
                self.problem(where, f"'{name}' does not exist")
                return
            if not options:
                return  # a script is run (with --help) only to check options: some do real work otherwise
        help_text = self.help_text(name)
        if help_text is None:
            if re.search(rf"\b{re.escape(name)}\b", self.declared):
                self.notes.append(f"{where}: {name} is not built here (it needs what this machine lacks); "
                                  f"its options are not checked")
            else:
                self.problem(where, f"'{name}' is no program of this build, and no chapter's CMakeLists.txt names it")
            return
        for option in options:
            if not re.search(rf"(?<![\w-]){re.escape(option)}(?![\w-])", help_text):
                self.problem(where, f"'{name} {option}': the --help of {name} does not list {option}")

    def every(self, where, kind, text):
        options = [o for o in re.findall(r"`(--[a-z][a-z0-9-]*)[^`]*`", text)]
        if kind == "stage program":  # chNN_NN_<stage>
            names = [n for n in self.programs if re.match(r"ch\d\d_\d\d_", n)]
        else:
            names = list(self.programs)
        if not names or not options:
            return
        for name in names:
            self.command(f"{where} (every {kind})", name, options)

    def path(self, where, token):
        token = re.sub(r"<[^<>]*>", "*", token.strip().rstrip(".,;:"))  # "results/<your gpu>/": one word
        first = token.split()[0] if token.split() else ""
        if not first or first.startswith(("-", "/", "~", "$", "build")) or "/" not in first:
            return
        if first.split("/")[0] not in TOP_LEVEL:
            return
        if not re.fullmatch(r"[A-Za-z0-9_.<>*/-]+", first):
            return
        self.checked += 1
        pattern = PLACEHOLDER.sub("*", first)
        if not glob.glob(str(self.project / pattern)):
            self.problem(where, f"'{first}' names nothing in the repository")

    def absence(self, where, sentence):
        named = [t for t in code_spans(sentence) if "/" in t or "." in t]
        self.checked += 1
        if not named:
            self.problem(where, f"'{sentence.strip()[:90]}' says something is absent without naming it as a "
                                f"path in `code`: name what is absent, so that a test can keep the sentence true")
            return
        for token in named:
            pattern = PLACEHOLDER.sub("*", token.strip())
            if glob.glob(str(self.project / pattern)):
                self.problem(where, f"'{sentence.strip()[:90]}': says '{token}' is not recorded, but it is")

    def layout(self, name, lines, start):
        """The README's Layout block: folders by indentation, and the stages each chapter line lists."""
        stack = []  # (indent, path)
        for offset, line in enumerate(lines):
            where = f"{name}:{start + offset}"
            match = re.match(r"^(\s*)(\S+)(\s+(.*))?$", line)
            if not match:
                continue
            indent, head, rest = len(match.group(1)), match.group(2), match.group(4) or ""
            if head.endswith("/") and " " not in head:
                while stack and stack[-1][0] >= indent:
                    stack.pop()
                folder = "/".join([p for _, p in stack] + [head.rstrip("/")])
                stack.append((indent, head.rstrip("/")))
                self.checked += 1
                if not glob.glob(str(self.project / PLACEHOLDER.sub("*", folder))):
                    self.problem(where, f"the Layout names {folder}/, which does not exist")
            else:
                rest = line  # a file, or the description's next line: it belongs to the folder above
            folder = "/".join(p for _, p in stack)
            if folder.startswith("chapters/ch") and folder.count("/") == 1:
                for stage in re.findall(r"(?<![\w/])(\d\d_[a-z0-9_]+)\b", rest):
                    self.checked += 1
                    if not (self.project / folder / f"{stage}.cu").is_file():
                        self.problem(where, f"the Layout lists stage {stage} of {folder}, but {folder}/{stage}.cu "
                                            f"does not exist")


def sentences(lines):
    """(line number, sentence) of the prose, sentences joined over the lines of their paragraph."""
    paragraphs, current, start = [], [], 0
    for number, line in enumerate(lines + [""], 1):
        if line.strip():
            if not current:
                start = number
            current.append(line)
        elif current:
            paragraphs.append((start, " ".join(" ".join(current).split())))
            current = []
    return [(start, sentence) for start, flat in paragraphs
            for sentence in re.split(r"(?<=[.!?])\s+(?=[A-Z*`])", flat)]


def check_page(claims, path, name, is_readme):
    text = path.read_text(encoding="utf-8")
    lines = prose(text)
    absent = set()  # what an absence names is checked as absent, not as present
    for number, sentence in sentences(lines):
        if ABSENCE.search(sentence):
            claims.absence(f"{name}:{number}", sentence)
            absent.update(code_spans(sentence))
        for every in EVERY.finditer(sentence):
            claims.every(f"{name}:{number}", every.group(1), every.group(2))
    for start, lines in code_blocks(text):
        for offset, line in enumerate(shell_lines(lines)):
            where = f"{name}:{start + offset}"
            words = line.split("#", 1)[0].split() if not line.lstrip().startswith("#") else []
            for command, options in commands(words):
                claims.command(where, command, options)
    for number, line in enumerate(lines, 1):
        where = f"{name}:{number}"
        for span in code_spans(line):
            for command, options in commands(span.split()):
                if options or command.startswith(("make ", "scripts/")):
                    claims.command(where, command, options)
            if span not in absent:
                claims.path(where, span)
    if is_readme:
        heading = re.search(r"^## Layout\s*$", text, re.MULTILINE)
        if heading:
            after = text[heading.end():]
            block = next(iter(code_blocks(after)), None)
            if block:
                start = text[:heading.end()].count("\n") + block[0]
                claims.layout(name, block[1], start)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--project", required=True, type=pathlib.Path, help="the repository's root")
    parser.add_argument("--program", action="append", default=[], metavar="NAME=PATH",
                        help="a program of this build (every one of them)")
    parser.add_argument("--readme", type=pathlib.Path, help="the README: its commands, paths, Layout, absences")
    parser.add_argument("--pages", nargs="*", default=[], type=pathlib.Path,
                        help="the book's pages: their commands, paths, promises and absences")
    args = parser.parse_args()
    programs = {}
    for given in args.program:
        name, _, path = given.partition("=")
        programs[name] = str(pathlib.Path(path).resolve())
    missing = sorted(name for name, path in programs.items() if not pathlib.Path(path).is_file())
    if missing:
        print(f"check_claims.py: error: not built: {', '.join(missing)} (build everything first: make build)")
        return 1
    claims = Claims(args.project.resolve(), programs)
    if args.readme:
        check_page(claims, args.readme, args.readme.name, True)
    for page in args.pages:
        check_page(claims, page, f"book/{page.name}", False)
    for note in claims.notes:
        print(f"check_claims.py: note: {note}")
    for problem in claims.problems:
        print(f"check_claims.py: {problem}")
    if claims.problems:
        print(f"check_claims.py: {len(claims.problems)} claim(s) of {claims.checked} do not hold")
        return 1
    print(f"check_claims.py: {claims.checked} claim(s) checked against {len(programs)} program(s): all hold")
    return 0


if __name__ == "__main__":
    sys.exit(main())
