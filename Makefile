# SPDX-License-Identifier: GPL-2.0-only
#
# Build and test harness for xsk_zc, the AF_XDP zero-copy driver helpers.
# The project lives outside a kernel tree; "make stage" stages it into a
# Debian linux-source-7.2 tree (tools/base.sh) in build/linux, and every
# other target works on that tree. All outputs stay under build/.
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
# Depend mode: ccache keys a kernel object on the dependency file gcc
# writes (-Wp,-MMD) instead of running the preprocessor once more before
# each compile it misses: cold, compiling takes about a quarter less
# (net/ipv4/ and kernel/bpf/ of the guest kernel, 131 objects, -j2:
# 112 s without, 79 s with, 83 s without ccache), and hits stay hits.
export CCACHE_DEPEND ?= 1

# Debian packages the harness needs.
PKGS_STAGE	:= xz-utils patch diffutils rsync
PKGS_BUILD	:= gcc make perl bc flex bison libelf-dev libssl-dev ccache \
		   python3 binutils
PKGS_LINT	:= dpkg-dev gcc-aarch64-linux-gnu binutils-aarch64-linux-gnu
# The QEMU guest ("make e2e", "make bench"); qemu-system-x86 itself (its
# version picks the source "make qemu" builds, its qemu-system-data and
# Debian's seabios give the guest's firmware) comes from bookworm-backports
# through tools/qemu-deps.sh.
PKGS_XSKB	:= gcc make libxdp-dev libbpf-dev libelf-dev zlib1g-dev
# The kernel's AF_XDP suite, xskxceiver, and its xdp_hw_metadata, from
# the staged tree.
PKGS_XSKX	:= gcc make clang llvm bpftool libelf-dev zlib1g-dev
# pahole, for the BTF of the guest kernel (xdp_hw_metadata's kfuncs).
PKGS_BTF	:= dwarves
PKGS_GUEST	:= iproute2 ethtool iputils-ping util-linux coreutils procps kmod \
		   python3 python3-yaml bc
PKGS_BENCH	:= gnuplot-nox
# The project's QEMU, with its tsnep model and igb fixes
# (tools/qemu/build.sh); meson >= 1.5 comes from bookworm-backports through
# tools/qemu-deps.sh --build.
PKGS_QEMU	:= gcc make ninja-build pkg-config python3 python3-venv xz-utils \
		   libglib2.0-dev zlib1g-dev libfdt-dev libattr1-dev flex bison \
		   patch
QEMU_DEPS	:= $(REPO)/tools/qemu-deps.sh
GUEST_RUN	:= $(REPO)/tools/guest/run.sh
# Seconds QEMU may run for each job before it is killed.
E2E_TIMEOUT	?= 900
KUNIT_TIMEOUT	?= 600
BENCH_TIMEOUT	?= 2400
# The igb-zc job of "make e2e": SR-IOV is e2e's sriov-bound.
IGBZC_TIMEOUT	?= 600
IGBZC_SCENARIOS	?= meta,hints,bufsz,resize,counters,qstats,reinit,reopen-1,reopen--1,leave-zc
# e2e's tests on igb: all if empty; "-NAME,-NAME" all but those.
# "make check" leaves out the ones e2e-debug runs (E2E_DEBUG_TESTS):
# lifecycle tests, which the debug kernel checks under KASAN, lockdep and
# kmemleak as well as for their outcome.
E2E_IGB		?=
# e2e's tests on two tsnep NICs (the project's QEMU model): all that
# apply to a platform NIC without SR-IOV, runtime PM or igb's fault
# injection. Not ring-resize-bound: tsnep_ethtool_ops have no
# get/set_ringparam nor set_channels (its ring sizes and channels are
# fixed), so there is no resize to refuse; nor xdp-frags-page-mode (tsnep's MTU
# stops at 2048).
TSNEP_E2E	?= zc-bind,zc-rxdrop,zc-txonly,zc-l2fwd,zc-l2fwd-no-loss,zc-xdp-tx,copy-mode,stack-ping,teardown,ifdown-ifup,xdp-remove,bad-queue,bad-frame-size,zc-no-prog,bad-mtu-bound,zc-rx-no-wakeup,zc-tx-no-wakeup,mtu-fits-bound,prog-swap-bound,link-flap-zc-tx,link-flap-zc-rx,zc-pass-hwts,zc-idle-irqs,zc-fill-empty,zc-tx-tstamp
# The xskxceiver job of "make e2e": the modes of tools/guest/xskxceiver.sh
# (~MODE: reported, not gated); XSKX_TESTS=A,B runs only those tests of
# the suite, each on its own, in each mode.
XSKX_TIMEOUT	?= 1500
XSKX_MODES	?= drv,zc,zc-bp
XSKX_TESTS	?=
# Bench: intervals per point (the median is reported) and their length;
# BENCH_ONLY="xdptx l2fwd" measures those benchmarks only, BENCH_ONLY=9000
# that size only, BENCH_ONLY="rxdrop zc 64" that one point (modes: skb,
# copy, zc, and xdp-drop for drop).
BENCH_REPS	?= 3
BENCH_SECS	?= 10
BENCH_ONLY	?=
# The guest kernel's instructions per frame beside the rate, counted by
# the TCG plugin tools/qemu/xskzc-insn.c; BENCH_INSN=0 runs without it.
BENCH_INSN	?= 1
# The NICs bench measures, one guest run and one table each.
BENCH_NICS	?= igb tsnep virtio
comma		:= ,
space		:= $(subst ,, )
# The debug guest (KASAN, lockdep, kmemleak...: build/guest-x86_64-debug)
# runs the e2e and the lifecycle stress in one boot; KASAN's shadow and
# kmemleak's metadata want more memory.
DEBUG_KERNEL	:= $(BUILD)/guest-x86_64-debug/arch/x86/boot/bzImage
DEBUG_MEM	?= 2048
E2E_DEBUG_TIMEOUT ?= 2400
# The lifecycle stress (tools/guest/stress.sh): bind/unbind cycles.
STRESS_CYCLES	?= 1000
# ... in e2e-debug, where the DMA API's checks of every map and sync make
# a cycle cost 0.37 s under TCG, not 0.22: 200 still make each of the
# four events (every 25th cycle) twice. The CPU is "make check"'s limit
# (the guests and the builds beside them share it): 400 cycles took
# 154 s of e2e-debug's 639 in a cold run. make stress runs STRESS_CYCLES.
STRESS_DEBUG_CYCLES ?= 200
# The debug kernel's e2e: frame counts and rates in percent of e2e's
# (tools/guest/e2e-debug.sh says why); the stress's sender rate there.
E2E_DEBUG_SCALE	?= 2
STRESS_DEBUG_RATE ?= 200
# e2e's tests on the debug kernel ("all": every one, 20 min more).
E2E_DEBUG_TESTS	?= teardown,xdp-remove,link-flap-zc-tx,runtime-pm-bound,sriov-bound,failed-reopen,failed-reinit-suspend,unbind-up
STRESS_TIMEOUT	?= 1500
# tsnep on the debug kernel (make e2e-debug-tsnep): e2e's lifecycle tests
# that apply to it and a shorter stress, on two tsnep NICs of the
# project's QEMU model, in one boot.
TSNEP_DEBUG_TESTS ?= teardown,xdp-remove,link-flap-zc-tx,ifdown-ifup,prog-swap-bound
TSNEP_DEBUG_CYCLES ?= 200
# The TX unit hang hunt (stress.sh txhang): rounds, seconds per socket.
TXHANG_ROUNDS	?= 5
TXHANG_SECS	?= 20
TXHANG_TIMEOUT	?= 1500

.PHONY: help stage kunit kunit-uml lint check clean distclean deps guest xsk-bench \
	xskxceiver xskxceiver-veth qemu tsnep-shim \
	guest-deps guest-boot e2e e2e-igb e2e-tsnep e2e-build bench series series-check guest-debug \
	guest-pristine tsnep-shim-pristine e2e-pristine bench-peers bench-smoke \
	e2e-debug e2e-debug-tsnep tsnep-shim-debug stress stress-debug txhang \
	txhang-debug

# Two kernel builds at once would only fight over the CPUs.
.NOTPARALLEL:

help:
	@echo 'xsk_zc build and test harness'
	@echo
	@echo '  stage      stage build/linux: Debian linux-source-7.2 + the'
	@echo '             project files + tools/patches (incremental)'
	@echo '  kunit      the KUnit suites, built into the debug guest kernel and'
	@echo '             run at its boot (KASAN, lockdep...): kunit.py parses them;'
	@echo '             fails on a splat or a kmemleak report too'
	@echo '  kunit-uml  the same suites in UML (build/kunit): no QEMU, no KASAN'
	@echo '  lint       checkpatch, kernel-doc, W=1, sparse and the hot-path'
	@echo '             indirect-call check (x86_64 and arm64 builds, build/lint-*)'
	@echo '  e2e        boot the QEMU guest (two igb NICs) and run the AF_XDP'
	@echo '             end-to-end tests (tools/guest/e2e.sh, igb-zc.sh, then'
	@echo '             the kernel'"'"'s xskxceiver suite: xskxceiver.sh), then'
	@echo '             e2e.sh on two tsnep NICs of the project'"'"'s QEMU model'
	@echo '  e2e-build  build what e2e needs (guest kernel, QEMU, test tools)'
	@echo '             without booting a guest'
	@echo '  bench      AF_XDP benchmarks in the guest: Kpps and the guest'
	@echo '             kernel'"'"'s instructions per frame (TCG plugin), table,'
	@echo '             build/bench/results.csv and results.png'
	@echo '  bench-peers  bench with the project'"'"'s kernel and with the pristine'
	@echo '             one (in-tree zero-copy), per NIC: ours/in-tree per point,'
	@echo '             build/bench/peers*.txt and peers*.png'
	@echo '  bench-smoke  one bench point with the TCG plugin: fails without'
	@echo '             a rate and a plausible instruction count'
	@echo '  series     the project as a git format-patch series against the'
	@echo '             pristine tree, with a cover letter: build/series/'
	@echo '             (steps in tools/series/steps)'
	@echo '  series-check  git am the series onto a pristine copy, build'
	@echo '             after every patch (x86_64 and arm64 lint configs),'
	@echo '             checkpatch --strict each patch, compare the final'
	@echo '             tree with build/linux (build/series-check)'
	@echo '  e2e-debug  the e2e lifecycle tests and the lifecycle stress on the'
	@echo '             debug kernel (KASAN, lockdep, kmemleak...): fails on'
	@echo '             any splat, leak or lost TX completion'
	@echo '  e2e-debug-tsnep  the same on two tsnep NICs of the project'"'"'s'
	@echo '             QEMU model (TSNEP_DEBUG_TESTS, TSNEP_DEBUG_CYCLES)'
	@echo '  stress     zero-copy bind/unbind cycles under traffic'
	@echo '             (tools/guest/stress.sh; STRESS_CYCLES=$(STRESS_CYCLES))'
	@echo '  stress-debug  the same on the debug kernel'
	@echo '  txhang     hunt the TX unit hang (stress.sh txhang; -debug too)'
	@echo '  check      kunit, e2e-debug and e2e-debug-tsnep beside lint,'
	@echo '             series-check and the e2e builds, then e2e: the'
	@echo '             project test command'
	@echo '  guest      build the guest kernel (build/guest-x86_64)'
	@echo '  guest-debug  build the debug guest kernel (build/guest-x86_64-debug)'
	@echo '  guest-pristine  build the guest kernel from the pristine base'
	@echo '             tree (build/guest-x86_64-pristine)'
	@echo '  e2e-pristine  e2e'"'"'s igb jobs on the pristine kernel: the'
	@echo '             in-tree drivers as peers (build/guest-run/*-pristine)'
	@echo '  xsk-bench  build tools/xsk-bench (build/xsk-bench)'
	@echo '  xskxceiver build the kernel'"'"'s xskxceiver from build/linux'
	@echo '             (build/xskxceiver)'
	@echo '  xskxceiver-veth  build veth as a module of the guest kernel'
	@echo '             (build/xskx-veth), for xskxceiver.sh'
	@echo '  xdp-hw-metadata  build the kernel'"'"'s xdp_hw_metadata from build/linux'
	@echo '             against the guest kernel'"'"'s BTF (build/xskxceiver)'
	@echo '  guest-boot boot the guest and show its NICs'
	@echo '  qemu       build the QEMU every guest job runs (tools/qemu, build/qemu:'
	@echo '             the tsnep model, the igb fixes of tools/qemu/patches) and'
	@echo '             run their tests (tools/qemu/tsnep-test.py, igb-test.py)'
	@echo '  tsnep-shim build the guest'"'"'s tsnep PCI shim module (build/tsnep-shim)'
	@echo '  deps       install the Debian packages the harness needs'
	@echo '  clean      remove build outputs (keeps build/base and build/ccache)'
	@echo '  distclean  remove build/ entirely'
	@echo
	@echo '  JOBS=n     parallel jobs (default: nproc = $(JOBS))'

deps:
	@$(DEPS) $(PKGS_STAGE) $(PKGS_BUILD) $(PKGS_LINT) $(PKGS_XSKB) $(PKGS_XSKX) \
		$(PKGS_GUEST) $(PKGS_BENCH)
	@$(QEMU_DEPS)

stage:
	@$(DEPS) $(PKGS_STAGE)
	@$(REPO)/tools/stage.sh

# The suites run at boot of the debug guest kernel, which has them built
# in (tools/guest/kunit.sh); the tree's kunit.py parses the kernel log
# the job saves and exits nonzero on any failed, crashed or missing test.
# The job fails on a splat in that log, and on a kmemleak report after
# the suites. One kernel build serves kunit and e2e-debug.
kunit: guest-debug guest-deps qemu
	@rc=0; \
	XSKZC_KERNEL=$(DEBUG_KERNEL) XSKZC_MEM=$(DEBUG_MEM) \
		$(GUEST_RUN) kunit $(KUNIT_TIMEOUT) || rc=1; \
	python3 $(KSRC)/tools/testing/kunit/kunit.py parse \
		$(BUILD)/guest-run/kunit/kunit.log || rc=1; \
	exit $$rc

# The same suites in UML (kunit/.kunitconfig): a quick loop for a driver
# author without QEMU. kunit.py passes each --make_options item as one
# argument to make, so CC="ccache gcc" reaches make as the single
# argument 'CC=ccache gcc'. It exits nonzero on any test failure, crash,
# or build failure.
kunit-uml: stage
	@$(DEPS) $(PKGS_BUILD)
	cd $(KSRC) && python3 tools/testing/kunit/kunit.py run \
		--kunitconfig=$(REPO)/kunit/.kunitconfig \
		--build_dir=$(KUNIT_DIR) \
		--jobs=$(JOBS) \
		--make_options=CC="$(CC)"

lint: stage
	@$(DEPS) $(PKGS_BUILD) $(PKGS_LINT)
	@JOBS=$(JOBS) CC="$(CC)" $(REPO)/tools/lint.sh

# The QEMU test guest: its kernel, the benchmark tool, the packages.
guest: stage
	@$(DEPS) $(PKGS_BUILD) $(PKGS_BTF)
	@JOBS=$(JOBS) CC="$(CC)" $(REPO)/tools/guest/build.sh

guest-debug: stage
	@$(DEPS) $(PKGS_BUILD)
	@JOBS=$(JOBS) CC="$(CC)" $(REPO)/tools/guest/build.sh debug

# The same guest kernel built from the pristine base tree: the in-tree
# drivers and their own zero-copy, the peers of "make e2e-pristine".
guest-pristine:
	@$(DEPS) $(PKGS_BUILD) $(PKGS_BTF)
	@JOBS=$(JOBS) CC="$(CC)" $(REPO)/tools/guest/build.sh pristine

xsk-bench:
	@$(DEPS) $(PKGS_XSKB)
	@$(MAKE) --no-print-directory -s -C $(REPO)/tools/xsk-bench \
		O=$(BUILD)/xsk-bench

xskxceiver: stage
	@$(DEPS) $(PKGS_XSKX)
	@$(MAKE) --no-print-directory -s -C $(REPO)/tools/xskxceiver \
		KSRC=$(KSRC) O=$(BUILD)/xskxceiver

# veth, the suite's own pair, as a module of the guest kernel (which has
# no CONFIG_VETH), from the staged tree's drivers/net/veth.c, in
# build/xskx-veth: xskxceiver.sh runs on it the tests whose entries on
# tools/xskxceiver/expected-failures drv mode on igb cannot confirm.
xskxceiver-veth: guest
	@mkdir -p $(BUILD)/xskx-veth
	@cp $(KSRC)/drivers/net/veth.c $(BUILD)/xskx-veth/
	@echo 'obj-m := veth.o' > $(BUILD)/xskx-veth/Kbuild
	@$(MAKE) --no-print-directory -s -C $(KSRC) O=$(BUILD)/guest-x86_64 \
		ARCH=x86_64 CC="$(CC)" modules_prepare
	@# the kernel has no modules of its own: its symbols are vmlinux's
	@cp $(BUILD)/guest-x86_64/vmlinux.symvers $(BUILD)/guest-x86_64/Module.symvers
	@$(MAKE) --no-print-directory -s -C $(KSRC) O=$(BUILD)/guest-x86_64 \
		ARCH=x86_64 CC="$(CC)" M=$(BUILD)/xskx-veth modules

# The tree's xdp_hw_metadata, for igb-zc's rx-hints: its BPF program is
# built against the guest kernel's BTF.
xdp-hw-metadata: guest
	@$(DEPS) $(PKGS_XSKX)
	@$(MAKE) --no-print-directory -s -C $(REPO)/tools/xskxceiver \
		KSRC=$(KSRC) O=$(BUILD)/xskxceiver \
		VMLINUX=$(BUILD)/guest-x86_64/vmlinux xdp_hw_metadata

# The QEMU every guest job runs (tools/guest/run.sh), igb and tsnep:
# Debian's source of the installed version with the tsnep model and the
# fixes of tools/qemu/patches (tools/qemu/build.sh), then their tests
# (tools/qemu/tsnep-test.py and igb-test.py: qtest, no guest, seconds):
# their failures and "tsnep-test: N passed, N failed", "igb-test: ...";
# all of their lines in build/qemu/tsnep-test.log and igb-test.log.
# Under a lock: "make check" runs e2e-debug beside e2e-build, and both
# need it.
qemu: guest-deps
	@$(DEPS) $(PKGS_QEMU)
	@$(QEMU_DEPS) --build
	@mkdir -p $(BUILD)/qemu
	@flock $(BUILD)/qemu/.lock sh -c '$(REPO)/tools/qemu/build.sh >/dev/null' || exit 1; \
	rc=0; for t in tsnep igb; do \
		flock $(BUILD)/qemu/.lock python3 -B $(REPO)/tools/qemu/$$t-test.py \
			$(BUILD)/qemu/src/build/qemu-system-x86_64 \
			> $(BUILD)/qemu/$$t-test.log.$$$$ || rc=1; \
		mv $(BUILD)/qemu/$$t-test.log.$$$$ $(BUILD)/qemu/$$t-test.log; \
		grep -v '^ok ' $(BUILD)/qemu/$$t-test.log; \
	done; exit $$rc

# The guest's test-only PCI shim for that model, a module of the guest
# kernel, built in build/tsnep-shim. $(1): the kernel's build directory,
# $(2): the shim's. Module.symvers must be there first.
KMAKE_X86 = $(MAKE) --no-print-directory -s -C $(KSRC) ARCH=x86_64 CC="$(CC)"
define build_shim
	mkdir -p $(2)
	cp $(REPO)/tools/guest/tsnep-shim/Kbuild \
		$(REPO)/tools/guest/tsnep-shim/tsnep-pci-shim.c $(2)/
	$(KMAKE_X86) O=$(1) M=$(2) modules
endef

tsnep-shim: guest
	@$(KMAKE_X86) O=$(BUILD)/guest-x86_64 modules_prepare
	@# the kernel has no modules of its own: its symbols are vmlinux's
	@cp $(BUILD)/guest-x86_64/vmlinux.symvers $(BUILD)/guest-x86_64/Module.symvers
	@$(call build_shim,$(BUILD)/guest-x86_64,$(BUILD)/tsnep-shim)

# The same for the pristine kernel (its in-tree tsnep, built in), from
# the pristine base tree: build/tsnep-shim-pristine, for "make bench-peers".
tsnep-shim-pristine: guest-pristine
	@src=$$($(REPO)/tools/base.sh) || exit 1; \
	o=$(BUILD)/guest-x86_64-pristine; d=$(BUILD)/tsnep-shim-pristine; \
	km="$(MAKE) --no-print-directory -s -C $$src ARCH=x86_64 CC=\"$(CC)\" O=$$o"; \
	eval "$$km modules_prepare" && \
	cp $$o/vmlinux.symvers $$o/Module.symvers && mkdir -p $$d && \
	cp $(REPO)/tools/guest/tsnep-shim/Kbuild \
		$(REPO)/tools/guest/tsnep-shim/tsnep-pci-shim.c $$d/ && \
	eval "$$km M=$$d modules"

# The same for the debug kernel, where tsnep itself is a module
# (tools/configs/guest-debug.config): both in build/tsnep-shim-debug.
tsnep-shim-debug: guest-debug
	@$(KMAKE_X86) O=$(BUILD)/guest-x86_64-debug modules
	@$(call build_shim,$(BUILD)/guest-x86_64-debug,$(BUILD)/tsnep-shim-debug)
	@cp $(BUILD)/guest-x86_64-debug/drivers/net/ethernet/engleder/tsnep.ko \
		$(BUILD)/tsnep-shim-debug/

guest-deps:
	@$(DEPS) $(PKGS_GUEST)
	@$(QEMU_DEPS)

guest-boot: guest xsk-bench guest-deps qemu
	@$(GUEST_RUN) boot 120

# Four boots: tools/guest/e2e.sh on igb, then the igb checks of
# tools/guest/igb-zc.sh that need a NIC of their own (metadata, buffer
# sizing, counters, failed reopens), xskxceiver (these three: e2e-igb),
# and e2e.sh on tsnep (TSNEP_E2E: e2e-tsnep). One PASS/FAIL/SKIP line
# per test, then "e2e: N passed, N failed, N skipped" (twice: igb, then
# tsnep), "igb-zc: ..." and "xskxceiver: ...".
# What e2e's guest jobs need, built without running any: "make check"
# builds it beside e2e-debug's guest.
e2e-build: guest xsk-bench xskxceiver xskxceiver-veth xdp-hw-metadata \
	guest-deps qemu tsnep-shim

# E2E_NODEPS=1: the jobs only, for a caller that has built e2e-build.
E2E_DEPS = $(if $(E2E_NODEPS),,e2e-build)

e2e: e2e-build
	@rc=0; \
	$(MAKE) --no-print-directory e2e-igb E2E_NODEPS=1 || rc=1; \
	$(MAKE) --no-print-directory e2e-tsnep E2E_NODEPS=1 || rc=1; \
	exit $$rc

e2e-igb: $(E2E_DEPS)
	@rc=0; \
	$(GUEST_RUN) e2e $(E2E_TIMEOUT) $(E2E_IGB) || { rc=1; \
		grep -q -E '^e2e: [0-9]+ passed' $(BUILD)/guest-run/e2e/output.log \
			2>/dev/null || echo 'e2e: 0 passed, 1 failed'; }; \
	$(GUEST_RUN) igb-zc $(IGBZC_TIMEOUT) $(IGBZC_SCENARIOS) || { rc=1; \
		grep -q -E '^igb-zc: [0-9]+ passed' \
			$(BUILD)/guest-run/igb-zc/output.log 2>/dev/null || \
			echo 'igb-zc: 0 passed, 1 failed'; }; \
	$(GUEST_RUN) xskxceiver $(XSKX_TIMEOUT) \
		$(XSKX_MODES)$(if $(XSKX_TESTS),$(comma)$(XSKX_TESTS)) || { rc=1; \
		grep -q -E '^xskxceiver: [0-9]+ passed' \
			$(BUILD)/guest-run/xskxceiver/output.log 2>/dev/null || \
			echo 'xskxceiver: 0 passed, 1 failed'; }; \
	exit $$rc

e2e-tsnep: $(E2E_DEPS)
	@XSKZC_NIC=tsnep $(GUEST_RUN) e2e $(E2E_TIMEOUT) $(TSNEP_E2E) || { \
		grep -q -E '^e2e: [0-9]+ passed' \
			$(BUILD)/guest-run/e2e-tsnep/output.log 2>/dev/null || \
			echo 'e2e (tsnep): 0 passed, 1 failed'; \
		exit 1; }

# e2e's igb jobs (every e2e test, igb-zc, xskxceiver) on the pristine
# kernel, with results of their own (build/guest-run/JOB-pristine): the
# in-tree zero-copy in the same harness, to set beside "make e2e"'s. Not
# in "make check": a test that fails there may be one the project fixes.
e2e-pristine: guest-pristine e2e-build
	@rc=0; \
	export XSKZC_KERNEL=$(BUILD)/guest-x86_64-pristine/arch/x86/boot/bzImage \
		XSKZC_RUN_TAG=pristine; \
	$(GUEST_RUN) e2e $(E2E_TIMEOUT) || rc=1; \
	$(GUEST_RUN) igb-zc $(IGBZC_TIMEOUT) $(IGBZC_SCENARIOS) || rc=1; \
	$(GUEST_RUN) xskxceiver $(XSKX_TIMEOUT) \
		$(XSKX_MODES)$(if $(XSKX_TESTS),$(comma)$(XSKX_TESTS)) || rc=1; \
	exit $$rc

# The debug kernel: a kmemleak scan of boot, e2e's lifecycle tests,
# then the stress, then kmemleak again, in one boot.
# Ends with "e2e-debug: OK" or "e2e-debug: FAILED".
e2e-debug: guest-debug xsk-bench guest-deps qemu
	@XSKZC_KERNEL=$(DEBUG_KERNEL) XSKZC_MEM=$(DEBUG_MEM) \
	$(GUEST_RUN) e2e-debug $(E2E_DEBUG_TIMEOUT) \
		$(STRESS_DEBUG_CYCLES),$(E2E_DEBUG_SCALE),$(STRESS_DEBUG_RATE),$(E2E_DEBUG_TESTS) || { \
		grep -q -E '^e2e-debug: (OK|FAILED)' \
			$(BUILD)/guest-run/e2e-debug/output.log 2>/dev/null || \
			echo 'e2e-debug: FAILED (the guest did not finish)'; \
		exit 1; }

# The same on two tsnep NICs (TSNEP_DEBUG_TESTS, TSNEP_DEBUG_CYCLES):
# tsnep's own code under KASAN, lockdep and kmemleak.
e2e-debug-tsnep: guest-debug tsnep-shim-debug xsk-bench guest-deps qemu
	@XSKZC_NIC=tsnep XSKZC_KERNEL=$(DEBUG_KERNEL) XSKZC_MEM=$(DEBUG_MEM) \
	$(GUEST_RUN) e2e-debug $(E2E_DEBUG_TIMEOUT) \
		$(TSNEP_DEBUG_CYCLES),$(E2E_DEBUG_SCALE),$(STRESS_DEBUG_RATE),$(TSNEP_DEBUG_TESTS) || { \
		grep -q -E '^e2e-debug: (OK|FAILED)' \
			$(BUILD)/guest-run/e2e-debug-tsnep/output.log 2>/dev/null || \
			echo 'e2e-debug: FAILED (the guest did not finish)'; \
		exit 1; }

# The series is generated from the repo each time (a few seconds).
series: stage
	@$(DEPS) git patch python3
	@$(REPO)/tools/series.sh

series-check: series
	@$(DEPS) $(PKGS_BUILD) $(PKGS_LINT) git
	@JOBS=$(JOBS) CCACHE=ccache $(REPO)/tools/series-check.sh

# Results of both kernels in build/guest-run/stress/ (the last run).
stress: guest xsk-bench guest-deps qemu
	@$(GUEST_RUN) stress $(STRESS_TIMEOUT) cycles,$(STRESS_CYCLES)

stress-debug: guest-debug xsk-bench guest-deps qemu
	@XSKZC_KERNEL=$(DEBUG_KERNEL) XSKZC_MEM=$(DEBUG_MEM) \
	$(GUEST_RUN) stress $(STRESS_TIMEOUT) \
		cycles,$(STRESS_CYCLES),$(STRESS_DEBUG_RATE)

txhang: guest xsk-bench guest-deps qemu
	@$(GUEST_RUN) stress $(TXHANG_TIMEOUT) txhang,$(TXHANG_ROUNDS),$(TXHANG_SECS)

txhang-debug: guest-debug xsk-bench guest-deps qemu
	@XSKZC_KERNEL=$(DEBUG_KERNEL) XSKZC_MEM=$(DEBUG_MEM) \
	$(GUEST_RUN) stress $(TXHANG_TIMEOUT) txhang,$(TXHANG_ROUNDS),$(TXHANG_SECS)

# bench.sh's arguments: REPS,SECS[,BENCH or SIZE...]
BENCH_ARGS = $(BENCH_REPS),$(BENCH_SECS)$(if $(BENCH_ONLY),$(comma)$(subst $(space),$(comma),$(strip $(BENCH_ONLY))))

bench: guest xsk-bench guest-deps qemu $(if $(filter tsnep,$(BENCH_NICS)),tsnep-shim)
	@$(DEPS) $(PKGS_BENCH)
	@rc=0; for nic in $(BENCH_NICS); do \
		XSKZC_INSN=$(BENCH_INSN) XSKZC_NIC=$$nic $(GUEST_RUN) bench $(BENCH_TIMEOUT) \
			$(BENCH_ARGS) || rc=1; \
		$(REPO)/tools/bench-report.sh $$nic || rc=1; \
	done; exit $$rc

# The same benchmarks on the pristine kernel too, whose drivers have
# their own in-tree zero-copy (7.2: igb_xsk.c, tsnep_main.c's, and
# virtio_net's, which this project has not ported yet: the same code in
# both kernels, a control of the harness), in the same harness and run,
# NIC by NIC (BENCH_NICS): each run's points, then ours/in-tree per point
# for the rate and the instructions per frame (tools/bench-peers.sh,
# build/bench/peers[-NIC].txt and .png).
bench-peers: guest guest-pristine xsk-bench guest-deps qemu \
	$(if $(filter tsnep,$(BENCH_NICS)),tsnep-shim tsnep-shim-pristine)
	@$(DEPS) $(PKGS_BENCH)
	@rc=0; for nic in $(BENCH_NICS); do \
		XSKZC_INSN=$(BENCH_INSN) XSKZC_NIC=$$nic $(GUEST_RUN) bench \
			$(BENCH_TIMEOUT) $(BENCH_ARGS) || rc=1; \
		XSKZC_INSN=$(BENCH_INSN) XSKZC_NIC=$$nic XSKZC_RUN_TAG=pristine \
			XSKZC_KERNEL=$(BUILD)/guest-x86_64-pristine/arch/x86/boot/bzImage \
			$(GUEST_RUN) bench $(BENCH_TIMEOUT) $(BENCH_ARGS) || rc=1; \
		$(REPO)/tools/bench-peers.sh $$nic || rc=1; \
	done; exit $$rc

# One bench point with the TCG plugin, short (2 x 2 s): a check that
# the plugin's count reaches bench's table, not a measurement. Fails
# when the point has no rate, no instruction count, or one outside
# SMOKE_INSN (the point costs a few hundred kernel instructions per
# frame; a count of every vCPU or of the whole boot is millions, a
# count of nothing 0).
SMOKE_POINT	?= rxdrop zc 64
SMOKE_INSN	?= 50 50000
bench-smoke: $(if $(E2E_NODEPS),,guest xsk-bench guest-deps qemu)
	@# no earlier run's points may stand for this one
	@rm -f $(BUILD)/guest-run/bench-smoke/points.csv
	@XSKZC_INSN=1 XSKZC_RUN_TAG=smoke $(GUEST_RUN) bench 300 \
		2,2,$(subst $(space),$(comma),$(strip $(SMOKE_POINT))) | \
		grep -E '^(bench|guest):'; \
	csv=$(BUILD)/guest-run/bench-smoke/points.csv; \
	awk -F, -v lo=$(word 1,$(SMOKE_INSN)) -v hi=$(word 2,$(SMOKE_INSN)) ' \
		NR == 2 { n++; k = $$4; i = $$5; why = $$6 } \
		END { \
			if (n != 1) { print "bench-smoke: FAILED: no point in '"$$csv"'"; exit 1 } \
			if (k + 0 <= 0 || i == "" || i + 0 < lo || i + 0 > hi) { \
				printf "bench-smoke: FAILED: %s Kpps, %s insn/frame (%s to %s wanted) %s\n", \
					k == "" ? "no" : k, i == "" ? "no" : i, lo, hi, why; exit 1 } \
			printf "bench-smoke: OK: $(SMOKE_POINT) B: %s Kpps, %s kernel insn/frame\n", k, i \
		}' $$csv 2>/dev/null || { [ -f $$csv ] || echo "bench-smoke: FAILED: no $$csv"; exit 1; }

# All run even if one fails; the result fails if any does. A guest job
# that passed before with the same inputs is not booted again
# (tools/guest/run.sh, XSKZC_REUSE; XSKZC_REUSE=0 runs every one).
# e2e on igb runs all but E2E_DEBUG_TESTS (see E2E_IGB). Ends with the
# time each part took ("check: times: debug kernel N s, ...; total N s").
# E2E_DEBUG_TESTS as e2e.sh's "all but" list: -teardown,-xdp-remove,...
# (nothing left out when e2e-debug runs "all").
CHECK_E2E_IGB = $(if $(filter all,$(E2E_DEBUG_TESTS)),,$(subst $(space),$(comma),$(addprefix -,$(subst $(comma),$(space),$(E2E_DEBUG_TESTS)))))
# Every package first (the two branches below would otherwise install
# at once), the debug kernel and its modules; then two lanes. The build
# lane, at nice 19: e2e-build first (its guest kernel, tools and QEMU),
# then lint, and series-check beside both: its builds, one patch at a
# time, are one object or two, which leaves a CPU to the others. The
# guest lane, one job after another: the debug kernel's (kunit, which
# builds the QEMU first unless the build lane has, e2e-debug,
# e2e-debug-tsnep), whose tests do not depend on speed, then, once
# e2e-build is done, e2e on tsnep and bench-smoke: the lane would
# otherwise wait for the builds. A TCG guest keeps both CPUs busy most
# of the time, and builds at nice 19 still slow it. The guest lane's
# output follows the builds'. Then e2e's igb jobs (e2e-igb), alone:
# some of their tests depend on timing, and xskxceiver's rebind races
# the core's deferred pool release under the builds' load (5918667).
CHECK_GUEST_LANE = kunit e2e-debug e2e-debug-tsnep e2e-tsnep bench-smoke
check: stage
	@rc=0; export XSKZC_REUSE=$${XSKZC_REUSE:-1}; t0=$$(date +%s); \
	export E2E_IGB="$(or $(E2E_IGB),$(CHECK_E2E_IGB))"; \
	$(DEPS) $(PKGS_BUILD) $(PKGS_LINT) $(PKGS_XSKB) $(PKGS_XSKX) $(PKGS_BTF) \
		$(PKGS_GUEST) $(PKGS_QEMU) git || rc=1; \
	$(QEMU_DEPS) --build || rc=1; \
	$(MAKE) --no-print-directory guest-debug tsnep-shim-debug xsk-bench \
		guest-deps || rc=1; \
	times=" debug kernel $$(($$(date +%s) - t0)) s,"; \
	L=$(BUILD)/check; mkdir -p $$L; rm -f $$L/*; \
	{ for j in $(CHECK_GUEST_LANE); do \
		case $$j in e2e-tsnep|bench-smoke) \
			while [ ! -f $$L/e2e-build.rc ]; do sleep 2; done ;; \
		esac; \
		date +%s > $$L/$$j.start; \
		case $$j in e2e-tsnep|bench-smoke) \
			if [ "$$(cat $$L/e2e-build.rc)" = 0 ]; then \
				$(MAKE) --no-print-directory $$j E2E_NODEPS=1 > $$L/$$j.log 2>&1; \
			else \
				echo "check: $$j: not run, e2e-build failed" > $$L/$$j.log; false; \
			fi ;; \
		*) $(MAKE) --no-print-directory $$j > $$L/$$j.log 2>&1 ;; \
		esac; \
		echo $$? > $$L/$$j.rc; date +%s > $$L/$$j.end; \
	  done; } & dpid=$$!; \
	ds=$$(date +%s); \
	{ nice -n 19 $(MAKE) --no-print-directory series-check \
		> $$L/series-check.log 2>&1; \
	  echo $$? > $$L/series-check.rc; date +%s > $$L/series-check.end; \
	} & spid=$$!; \
	for t in e2e-build lint; do \
		s=$$(date +%s); \
		nice -n 19 $(MAKE) --no-print-directory $$t; r=$$?; \
		[ $$r = 0 ] || rc=1; \
		[ $$t != e2e-build ] || echo $$r > $$L/e2e-build.rc; \
		times="$$times $$t $$(($$(date +%s) - s)) s,"; \
	done; \
	wait $$spid; cat $$L/series-check.log; \
	[ "$$(cat $$L/series-check.rc)" = 0 ] || rc=1; \
	times="$$times series-check $$(($$(cat $$L/series-check.end) - ds)) s,"; \
	wait $$dpid; \
	for j in $(CHECK_GUEST_LANE); do \
		cat $$L/$$j.log; [ "$$(cat $$L/$$j.rc)" = 0 ] || rc=1; \
		times="$$times $$j $$(($$(cat $$L/$$j.end) - $$(cat $$L/$$j.start))) s,"; \
	done; \
	times="$${times%,} (these five beside the builds),"; \
	s=$$(date +%s); $(MAKE) --no-print-directory e2e-igb E2E_NODEPS=1 || rc=1; \
	times="$$times e2e-igb $$(($$(date +%s) - s)) s,"; \
	echo "check: times:$${times%,}; total $$(($$(date +%s) - t0)) s"; \
	if [ $$rc -ne 0 ]; then echo 'check: FAILED'; else echo 'check: OK'; fi; \
	exit $$rc

clean:
	rm -rf $(KSRC) $(KUNIT_DIR) $(BUILD)/lint-x86_64 $(BUILD)/lint-arm64 \
		$(BUILD)/lint-logs $(BUILD)/lint-pass \
		$(BUILD)/.stage.* $(BUILD)/guest-x86_64 $(BUILD)/guest-run \
		$(BUILD)/guest-x86_64-debug \
		$(BUILD)/xsk-bench $(BUILD)/bench $(BUILD)/series \
		$(BUILD)/series-work $(BUILD)/series-check $(BUILD)/tsnep-shim \
		$(BUILD)/tsnep-shim-debug $(BUILD)/tsnep-shim-pristine $(BUILD)/check \
		$(BUILD)/qemu/src/build

distclean:
	rm -rf $(BUILD)
