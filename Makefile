# Two commands do everything on a fresh machine: `make run` and `make test`.
SHELL := /bin/bash
NODE_BIN := node_modules/.bin
# `make test TESTS=test/rest/*.test.ts` runs a subset; `npx mocha <file>` runs one file. The browser tests, the
# longest files, come first so that no worker is left with one of them when the others are done.
TESTS ?= 'test/web/**/*.test.ts' 'test/!(web)/**/*.test.ts'
# Test files run in TEST_JOBS processes at once: each file's servers, databases and fakes are its own. Three keep two
# cores busy while some files wait on browsers, sockets and timers (four crowd them); with the Postgres run beside
# it, two each.
ifdef TEST_DATABASE_URL
TEST_JOBS ?= 2
else
TEST_JOBS ?= 3
endif
MOCHA := $(NODE_BIN)/mocha --parallel --jobs $(TEST_JOBS)

# The web app (web/) is bundled into dist/web, which Herald serves under /app.
.PHONY: install lint format generate check-generated web build sdk run test test-sqlite test-postgres typecheck bench \
  clean

install: node_modules/.installed

node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund
	@touch $@

# Formatting and lint rules live in biome.jsonc: `make lint` checks them (CI runs it), `make format` applies them.
# Biome wraps code at 120 columns but not strings or comments: check-line-length holds every source line to 120.
lint: install
	$(NODE_BIN)/biome ci .
	node scripts/check-line-length.mjs .

format: install
	$(NODE_BIN)/biome check --write .

generate: install
	$(NODE_BIN)/tsx scripts/generate.ts
	@mkdir -p $(STAMPS) && touch $(STAMPS)/generate

# CI: regenerating must leave generated/ exactly as committed.
check-generated: generate
	@git diff --exit-code --stat -- generated docs/mcp-tools.md || \
	  (echo "generated/ is out of date: run make generate and commit it" && exit 1)
	@test -z "$$(git status --porcelain -- generated docs/mcp-tools.md)" || \
	  (git status --porcelain -- generated docs/mcp-tools.md; \
	  echo "generated/ has untracked files: run make generate and commit it"; exit 1)

# `make run` and `make build` redo a step only when a file it reads changed since it last ran: each step leaves a
# stamp in dist/.stamps, newer than everything it read.
STAMPS := dist/.stamps
files = $(shell find $(1) -type f 2>/dev/null)
GENERATE_INPUTS := $(call files,openapi jsonrpc-schemas scripts/generate scripts/generate.ts)
WEB_INPUTS := $(call files,web src/domain generated scripts/build-web.ts)
TSC_INPUTS := $(call files,src generated) tsconfig.json tsconfig.build.json

$(STAMPS)/generate: node_modules/.installed $(GENERATE_INPUTS)
	$(NODE_BIN)/tsx scripts/generate.ts
	@mkdir -p $(@D) && touch $@

web: $(STAMPS)/web

$(STAMPS)/web: $(STAMPS)/generate $(WEB_INPUTS)
	$(NODE_BIN)/tsx scripts/build-web.ts
	@touch $@

build: $(STAMPS)/tsc $(STAMPS)/web

$(STAMPS)/tsc: $(STAMPS)/generate $(TSC_INPUTS)
	$(NODE_BIN)/tsc -p tsconfig.build.json
	@touch $@

# The SDK package (sdk/, @herald/sdk) built and packed with its dependencies into dist/herald-sdk-<version>.tgz.
sdk: generate
	$(NODE_BIN)/tsx scripts/pack-sdk.ts

# V8's heap sized for a server's steady memory (docs/operations.md, Memory): the old space capped at 1 GiB, so full
# collections come at about twice the live heap rather than four times it, and the young generation's semi-spaces at
# 8 MiB. bench/processes.ts starts the benchmarks' Herald the same way.
HERALD_NODE_FLAGS := --max-old-space-size=1024 --max-semi-space-size=8

run: build
	node $(HERALD_NODE_FLAGS) dist/src/cli/main.js serve

# Each project is checked again only when a file it reads changed since it last passed (directories count, so a file
# removed does too), and then incrementally: what the checker learnt is kept in dist/.tsc.
typecheck: $(STAMPS)/typecheck-herald $(STAMPS)/typecheck-web

# The folders are named with a slash: `test` and `bench` are also targets of this file.
TYPECHECK_INPUTS := $(shell find src/ generated/ sdk/src/ scripts/ test/ bench/ 2>/dev/null) tsconfig.json
$(STAMPS)/typecheck-herald: $(STAMPS)/generate $(TYPECHECK_INPUTS)
	$(NODE_BIN)/tsc -p tsconfig.json --incremental --tsBuildInfoFile dist/.tsc/herald.tsbuildinfo
	@touch $@

WEB_TYPECHECK_INPUTS := $(shell find web/src/ src/domain/ generated/ sdk/src/ 2>/dev/null) web/tsconfig.json
$(STAMPS)/typecheck-web: $(STAMPS)/generate $(WEB_TYPECHECK_INPUTS)
	$(NODE_BIN)/tsc -p web/tsconfig.json --incremental --tsBuildInfoFile dist/.tsc/web.tsbuildinfo
	@touch $@

# SQLite always; Postgres too when TEST_DATABASE_URL names a server (.ci/run starts one), both at once: the files
# wait on browsers, sockets and timers more than they compute, so the two runs' four processes keep two cores busier
# than one run after the other. SQLite's output comes as it runs, Postgres's after it; the web app is built first, so
# neither run builds it under the other. The typecheck runs beside them at a lower priority, on the cycles the tests
# leave idle (mocha runs the TypeScript through tsx, which checks no types): its output is shown only if it fails,
# and then make test fails too.
test: $(STAMPS)/generate
	@rm -f test-artifacts/results-*.json test-artifacts/durations-*.json test-artifacts/postgres-run.log \
	  test-artifacts/typecheck.log
	@mkdir -p test-artifacts
	@nice -n 10 $(MAKE) --no-print-directory --keep-going typecheck >test-artifacts/typecheck.log 2>&1 & typecheck=$$!; \
	$(NODE_BIN)/tsx -e "import('./test/support/web-build.ts').then((m) => m.ensureWebBuilt())" || exit 1; \
	status=0; postgres=; \
	if [ -n "$$TEST_DATABASE_URL" ]; then \
	  HERALD_TEST_DB=postgres $(MOCHA) $(TESTS) >test-artifacts/postgres-run.log 2>&1 & postgres=$$!; \
	else echo "TEST_DATABASE_URL is not set: the Postgres run is skipped here" \
	  "(.ci/run starts Postgres and runs it)."; fi; \
	HERALD_TEST_DB=sqlite $(MOCHA) $(TESTS) || status=1; \
	if [ -n "$$postgres" ]; then wait $$postgres || status=1; cat test-artifacts/postgres-run.log; fi; \
	if ! wait $$typecheck; then \
	  status=1; echo; echo "The typecheck failed (test-artifacts/typecheck.log):"; cat test-artifacts/typecheck.log; \
	  echo '{"passed":0,"failed":1}' >test-artifacts/results-typecheck.json; \
	fi; \
	node scripts/test-summary.mjs; exit $$status

# BENCH_DATABASE_URL=postgres://… adds Postgres rows to the publishing benchmark (a fresh database on that server).
bench: build
	$(NODE_BIN)/tsx bench/run.ts

clean:
	rm -rf dist test-artifacts
