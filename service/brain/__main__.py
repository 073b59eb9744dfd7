"""``python -m service.brain``: the brain on standard input and output."""

from service.brain import main

main()
