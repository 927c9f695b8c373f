# Thin frontend over run-check.sh; nothing depends on make.
# Extra flags: make check ARGS="--format json --out evidence.json"

ARGS ?=

.PHONY: check check-fast check-strict fix

check:
	./run-check.sh $(ARGS)

check-fast:
	./run-check.sh --mode fast $(ARGS)

check-strict:
	./run-check.sh --mode strict $(ARGS)

fix:
	./run-check.sh fix $(ARGS)
