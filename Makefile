# Two set-up commands on a fresh machine: `make run` and `make test`.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
PROTOS := $(wildcard protos/gameengine/v1/*.proto) $(wildcard protos/gameengine/storage/v1/*.proto)
STUBS := protos/gameengine/v1/.generated
DESCRIPTORS := protos/gameengine/descriptors.binpb
export GE_PORT ?= 50051
export GE_DATA_DIR ?= ./var
export PYTHONPATH := $(CURDIR):$(CURDIR)/protos

.PHONY: run test lint proto-baseline bench stubs venv clean soak crashloop compiled pure strength

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[test]'
	touch $@

venv: $(STAMP)

$(STUBS): $(STAMP) $(PROTOS)
	$(BIN)/python -m grpc_tools.protoc -Iprotos --python_out=protos --grpc_python_out=protos \
	  --plugin=protoc-gen-mypy=$(BIN)/protoc-gen-mypy --mypy_out=protos \
	  --plugin=protoc-gen-mypy_grpc=$(BIN)/protoc-gen-mypy_grpc --mypy_grpc_out=protos $(PROTOS)
	touch $@

# The protos with their comments, for server reflection (server/reflection.py).
$(DESCRIPTORS): $(STAMP) $(PROTOS)
	$(BIN)/python -m grpc_tools.protoc -Iprotos --include_imports --include_source_info \
	  --descriptor_set_out=$@ $(PROTOS)

stubs: $(STUBS) $(DESCRIPTORS)

# The optional mypyc build of the engines' hot modules (engines/native.py says which; bench/notes/mypyc.md).
# Rebuilt when any engine source changed; without it (or with GE_PURE_PYTHON=1) the .py files run.
NATIVE := engines/native-build.json
ENGINE_SRCS := $(wildcard engines/*.py engines/*/*.py)
$(NATIVE): $(STAMP) $(ENGINE_SRCS)
	$(BIN)/python tools/build_compiled.py

compiled: $(NATIVE)

pure:
	rm -rf engines/*/*.so engines_native__mypyc*.so $(NATIVE) build

# `make run` compiles the engines first where a C compiler is here, else runs them as pure Python.
run: $(STUBS) $(DESCRIPTORS)
	@$(MAKE) -s $(NATIVE) || $(BIN)/python tools/build_compiled.py --optional
	$(BIN)/python -m server.main

# Static checks (README "Checks"); `make test` runs them first, so a finding fails CI.
lint: $(STUBS)
	$(BIN)/ruff check .
	$(BIN)/mypy
	cd protos && ../$(BIN)/buf lint && ../$(BIN)/buf format --diff --exit-code \
	  && ../$(BIN)/buf breaking --against breaking-baseline.binpb

# After a release: its protos become the baseline that `buf breaking` compares against.
proto-baseline: $(STAMP)
	cd protos && ../$(BIN)/buf build --exclude-source-info -o breaking-baseline.binpb

# The whole suite against the compiled engines, then the golden digests and the engines' rule tests
# against the pure-Python reference (GE_EXPECT_BUILD: tests/conformance/test_native.py checks which ran).
PURE_TESTS := tests/golden tests/conformance/test_native.py tests/pompeii tests/eruption tests/citadels tests/smallworld
test: lint $(DESCRIPTORS) $(NATIVE)
	GE_EXPECT_BUILD=compiled $(BIN)/python -m pytest -q -rf -n 2 --dist loadfile
	GE_EXPECT_BUILD=pure GE_PURE_PYTHON=1 $(BIN)/python -m pytest -q -rf -n 2 --dist loadfile $(PURE_TESTS)

bench: $(STUBS) $(NATIVE)
	$(BIN)/python -m bench.run

soak: $(STUBS)
	$(BIN)/python -m bench.soak

crashloop: $(STUBS)
	$(BIN)/python -m bench.crashloop

strength: $(STUBS)
	$(BIN)/python -m bench.strength

clean: pure
	rm -rf $(VENV) protos/gameengine/v1/*_pb2*.py* protos/gameengine/storage/v1/*_pb2*.py* $(STUBS) $(DESCRIPTORS)
