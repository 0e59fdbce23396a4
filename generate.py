"""Generate a CLUTRR-style dataset: ``python generate.py --k 2,3 --noise supporting``."""
import sys

from clutrr.cli import generate_main

if __name__ == "__main__":
    sys.exit(generate_main())
