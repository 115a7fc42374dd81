# snowline — one binary, built twice: release (build/) and sanitized (build/asan/).
# `make` builds the release binary, `make test` runs every test against the
# sanitized one, `make bench` and `make fuzz` measure. Sources are discovered,
# so adding a module needs no edit here.

# Every core builds (the rules order what must come first: the packages, blst, protoc-c's output).
MAKEFLAGS += -j$(shell nproc 2>/dev/null || echo 1)

CC       ?= cc
CSTD      = -std=c11 -D_GNU_SOURCE
WARN      = -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
            -Wno-unused-parameter -Wvla -Wformat=2 -Wno-format-truncation
INC       = -Isrc -Ibuild/blst/include -Ibuild/gen $(shell pkg-config --cflags-only-I libpq 2>/dev/null)
PKGS      = jansson sqlite3 lmdb libsecp256k1 libcrypto libssl libcurl libpq libprotobuf-c libzstd
DEPLIBS   = $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lpthread -ldl -lm
BLSTLIB   = build/blst/libblst.a

REL_CFLAGS  = $(CSTD) $(WARN) $(INC) -O2 -g -fno-omit-frame-pointer -DSL_HAVE_TCMALLOC
ASAN_CFLAGS = $(CSTD) $(WARN) $(INC) -O1 -g -fno-omit-frame-pointer \
              -fsanitize=address,undefined -fno-sanitize-recover=undefined
REL_LIBS    = $(DEPLIBS) -lprofiler -ltcmalloc
ASAN_LIBS   = $(DEPLIBS) -lprofiler -fsanitize=address,undefined

# The p2p layer's protobuf messages (src/p2p/wire.proto), compiled by protoc-c into build/gen/p2p.
GEN_SRC   = build/gen/p2p/wire.pb-c.c
LIB_SRC   = $(shell find src -name '*.c' ! -name main.c | sort) $(GEN_SRC)
TEST_SRC  = $(wildcard tests/unit/test_*.c)
FUZZ_SRC  = $(wildcard fuzz/fuzz_*.c)

REL_OBJ   = $(LIB_SRC:%.c=build/rel/%.o)
ASAN_OBJ  = $(LIB_SRC:%.c=build/asan/%.o)
TESTS     = $(TEST_SRC:tests/unit/%.c=build/asan/tests/%)
FUZZERS   = $(FUZZ_SRC:fuzz/%.c=build/fuzz/%)
REPLAYERS = $(FUZZ_SRC:fuzz/%.c=build/asan/replay/%)

PLUGINS   = build/plugins/tGas3T58KzdjcJ2iKSyiYsWiqYctRXaPTqBCA11BqEkNg8kPc.so

.PHONY: FORCE run all asan test unit e2e fuzz-replay fuzz bench deps clean format lint
all: build/snowline $(PLUGINS)

# The commit the binary is built from (util/version.c): regenerated when it changes.
GIT_COMMIT := $(shell git rev-parse HEAD 2>/dev/null)$(shell git diff --quiet HEAD -- 2>/dev/null || echo -dirty)
build/gen/version_gen.h: FORCE
	@mkdir -p $(dir $@)
	@echo '#define SL_GIT_COMMIT "$(GIT_COMMIT)"' >$@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@
build/rel/src/util/version.o build/asan/src/util/version.o build/fuzzlib/src/util/version.o: build/gen/version_gen.h
FORCE:

build/gen/p2p/wire.pb-c.c build/gen/p2p/wire.pb-c.h &: src/p2p/wire.proto build/.deps
	@mkdir -p build/gen/p2p
	@echo "  PROTOC  $<"
	@protoc-c --proto_path=src/p2p --c_out=build/gen/p2p $<
# protoc-c's initializer macros leave out braces; src/p2p uses its _init() functions instead.
build/rel/build/gen/%.o build/asan/build/gen/%.o: WARN += -Wno-missing-braces
P2P_OBJ   = $(foreach d,rel asan fuzzlib,$(patsubst %.c,build/$(d)/%.o,$(wildcard src/p2p/*.c)))
$(P2P_OBJ): build/gen/p2p/wire.pb-c.h

deps: build/.deps
build/.deps: scripts/deps.sh
	@mkdir -p build && ./scripts/deps.sh && touch $@

$(BLSTLIB): scripts/blst.sh | build/.deps
	./scripts/blst.sh build/blst

build/rel/%.o: %.c build/.deps | $(BLSTLIB)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(REL_CFLAGS) -MMD -MP -c $< -o $@
build/asan/%.o: %.c build/.deps | $(BLSTLIB)
	@mkdir -p $(dir $@)
	@echo "  CC asan $<"
	@$(CC) $(ASAN_CFLAGS) -MMD -MP -c $< -o $@

build/rel/libsnowline.a: $(REL_OBJ)
	@rm -f $@; ar rcs $@ $^
build/asan/libsnowline.a: $(ASAN_OBJ)
	@rm -f $@; ar rcs $@ $^

build/snowline: build/rel/src/main.o build/rel/libsnowline.a $(BLSTLIB)
	$(CC) -o $@ $^ $(REL_LIBS)
build/asan/snowline: build/asan/src/main.o build/asan/libsnowline.a $(BLSTLIB)
	$(CC) -o $@ $^ $(ASAN_LIBS)
# bench programs (bench/*.c, against the release library; bench/sigagg.sh runs build/bench/sigagg_bench)
build/bench/%: bench/%.c build/rel/libsnowline.a $(BLSTLIB)
	@mkdir -p $(@D)
	$(CC) $(REL_CFLAGS) -o $@ $< build/rel/libsnowline.a $(BLSTLIB) $(REL_LIBS)
asan: build/asan/snowline

# The example VM plugin (plugins/timestampvm.c), named by its VM id.
build/plugins/tGas3T58KzdjcJ2iKSyiYsWiqYctRXaPTqBCA11BqEkNg8kPc.so: plugins/timestampvm.c src/node/vm_plugin.h
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) -Isrc -O2 -fPIC -shared -o $@ $<

build/asan/tests/%: tests/unit/%.c build/asan/libsnowline.a $(BLSTLIB)
	@mkdir -p $(dir $@)
	@echo "  TEST    $@"
	@$(CC) $(ASAN_CFLAGS) -Itests/unit -o $@ $^ $(ASAN_LIBS) -lcmocka

# Fuzz targets: libFuzzer binaries (clang) for `make fuzz`; the same sources
# linked with a corpus replayer (sanitized, any compiler) for `make test`.
# The libFuzzer side links a clang-instrumented archive of the library (built
# once for all targets, so a target pulls in only the objects it uses). The
# headers are listed because fuzz/*.c are not compiled through .d files.
FUZZ_HDR    = $(wildcard fuzz/*.h) $(shell find src -name '*.h')
FUZZ_CFLAGS = $(CSTD) $(INC) -O1 -g -fno-omit-frame-pointer \
              -fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZ_OBJ    = $(LIB_SRC:%.c=build/fuzzlib/%.o)
build/asan/replay/%: fuzz/%.c fuzz/replay.c $(FUZZ_HDR) build/asan/libsnowline.a $(BLSTLIB)
	@mkdir -p $(dir $@)
	$(CC) $(ASAN_CFLAGS) -o $@ $(filter-out %.h,$^) $(ASAN_LIBS)
build/fuzzlib/%.o: %.c build/.deps | $(BLSTLIB)
	@mkdir -p $(dir $@)
	clang $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c $< -o $@
build/fuzzlib/libsnowline.a: $(FUZZ_OBJ)
	@rm -f $@; ar rcs $@ $^
build/fuzz/%: fuzz/%.c $(FUZZ_HDR) build/fuzzlib/libsnowline.a $(BLSTLIB)
	@mkdir -p $(dir $@)
	clang $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< build/fuzzlib/libsnowline.a $(BLSTLIB) \
	  $(DEPLIBS) -lprofiler

test: build/snowline build/asan/snowline $(PLUGINS) $(TESTS) $(REPLAYERS)
	@./tests/run.sh

fuzz: $(FUZZERS)
	@./scripts/fuzz.sh $(FUZZ_SECONDS)

# The main job: snowline up — a fuji devnet node on :9650, the indexer, the Data API on :8080; data under ./data.
run: build/snowline $(PLUGINS)
	@mkdir -p data/node/plugins && cp $(PLUGINS) data/node/plugins/
	./build/snowline up --data-dir data $(ARGS)

bench: build/snowline
	@./bench/run.sh

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

# Formatting, include layering and third-party header placement (scripts/lint.sh); part of `make test`.
lint: build/.deps
	@./scripts/lint.sh

clean:
	rm -rf build

-include $(shell find build -name '*.d' 2>/dev/null)
