#!/usr/bin/env python3
"""The README's C++ snippets are taken from the example programs: every line of every
```cpp block in README.md must be a line (leading and trailing blanks aside) of one of the
given example sources, so that the README cannot show code that no longer compiles; and the
README must link every example.

    check_readme.py README.md EXAMPLE.cpp...
"""
import os
import sys


def main():
    readme, examples = sys.argv[1], sys.argv[2:]
    known = set()
    for path in examples:
        with open(path, encoding="utf-8") as f:
            known.update(line.strip() for line in f)
    with open(readme, encoding="utf-8") as f:
        text = f.read()
    problems = [f"{readme}: no link to examples/{os.path.basename(path)}" for path in examples
                if f"examples/{os.path.basename(path)}" not in text]
    in_block = False
    for number, line in enumerate(text.splitlines(), 1):
        if line.startswith("```"):
            in_block = line.strip() == "```cpp"
        elif in_block and line.strip() and line.strip() not in known:
            problems.append(f"{readme}:{number}: not a line of any example: {line.strip()}")
    for problem in problems:
        print(problem)
    print(f"{len(problems)} problem(s)" if problems else "the README's snippets are lines of the examples")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
