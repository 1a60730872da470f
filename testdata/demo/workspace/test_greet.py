import sys

from greet import greet

failures = 0
for name, expected in [("world", "Hello, world!"), ("Genesis", "Hello, Genesis!")]:
    got = greet(name)
    if got != expected:
        print(f"greet({name!r}) = {got!r}, expected {expected!r}")
        failures += 1
print(f"{2 - failures} passed, {failures} failed")
sys.exit(1 if failures else 0)
