# SPDX-License-Identifier: GPL-2.0-only
#
# Build and test harness for xsk_zc, the AF_XDP zero-copy driver helpers.
# The project lives outside a kernel tree; "make stage" stages it into a
# Debian linux-source-6.12 tree in build/linux, and every other target
# works on that tree. All outputs stay under build/.
#
# Run "make help" for the targets.

REPO		:= $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
BUILD		:= $(REPO)/build
KSRC		:= $(BUILD)/linux
KUNIT_DIR	:= $(BUILD)/kunit
JOBS		?= $(shell nproc)
CC		:= ccache gcc
DEPS		:= $(REPO)/tools/deps.sh

# ccache keeps its cache under build/ too, unless told otherwise.
export CCACHE_DIR ?= $(BUILD)/ccache

# Debian packages the harness needs.
PKGS_STAGE	:= linux-source-6.12 xz-utils patch diffutils rsync
PKGS_BUILD	:= gcc make perl bc flex bison libelf-dev libssl-dev ccache \
		   python3 binutils
PKGS_LINT	:= sparse

.PHONY: help stage kunit lint check clean distclean deps

# Two kernel builds at once would only fight over the CPUs.
.NOTPARALLEL:

help:
	@echo 'xsk_zc build and test harness'
	@echo
	@echo '  stage      stage build/linux: Debian linux-source-6.12 + the'
	@echo '             project files + tools/patches (incremental)'
	@echo '  kunit      build and run the KUnit tests (ARCH=um) in build/kunit'
	@echo '  lint       checkpatch, kernel-doc, W=1, sparse and the hot-path'
	@echo '             indirect-call check (x86_64 build in build/lint-x86_64)'
	@echo '  check      kunit, then lint: the project test command'
	@echo '  deps       install the Debian packages the harness needs'
	@echo '  clean      remove build outputs (keeps build/base and build/ccache)'
	@echo '  distclean  remove build/ entirely'
	@echo
	@echo '  JOBS=n     parallel jobs (default: nproc = $(JOBS))'

deps:
	@$(DEPS) $(PKGS_STAGE) $(PKGS_BUILD) $(PKGS_LINT)

stage:
	@$(DEPS) $(PKGS_STAGE)
	@$(REPO)/tools/stage.sh

# kunit.py passes each --make_options item as one argument to make, so
# CC="ccache gcc" reaches make as the single argument 'CC=ccache gcc'.
# It exits nonzero on any test failure, crash, or build failure.
kunit: stage
	@$(DEPS) $(PKGS_BUILD)
	cd $(KSRC) && python3 tools/testing/kunit/kunit.py run \
		--kunitconfig=$(REPO)/kunit/.kunitconfig \
		--build_dir=$(KUNIT_DIR) \
		--jobs=$(JOBS) \
		--make_options=CC="$(CC)"

lint: stage
	@$(DEPS) $(PKGS_BUILD) $(PKGS_LINT)
	@JOBS=$(JOBS) CC="$(CC)" $(REPO)/tools/lint.sh

# Both run even if the first fails; the result fails if either does.
check: stage
	@rc=0; \
	$(MAKE) --no-print-directory kunit || rc=1; \
	$(MAKE) --no-print-directory lint || rc=1; \
	if [ $$rc -ne 0 ]; then echo 'check: FAILED'; else echo 'check: OK'; fi; \
	exit $$rc

clean:
	rm -rf $(KSRC) $(KUNIT_DIR) $(BUILD)/lint-x86_64 $(BUILD)/lint-logs \
		$(BUILD)/.stage.*

distclean:
	rm -rf $(BUILD)
