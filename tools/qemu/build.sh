#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# tools/qemu/build.sh - build QEMU with the project's tsnep model
# (tools/qemu/tsnep.c, device "tsnep-pci") into build/qemu/, for the
# guest jobs that need a tsnep NIC; the igb jobs keep Debian's QEMU.
#
# The source is that of the installed qemu-system-x86 (the same QEMU the
# other jobs run), Debian's source package from bookworm-backports of the
# archive this machine already uses (tools/qemu-deps.sh --archive): a
# private apt state under build/qemu/apt/ fetches it, the system's apt
# sources are not touched. Only the x86_64 system emulator is built,
# without default features or devices: q35, TCG, the ISA serial port,
# virtio-9p (the guest's root file system) and tsnep-pci
# (build/qemu/src/configs/devices/x86_64-softmmu/xskzc.mak).
#
# Debian's "+ds" tarball has no firmware blobs and no bundled wheels: the
# EDK2 images are not unpacked (the guest boots SeaBIOS from Debian's
# qemu-system-data, "-L /usr/share/qemu"), and meson comes from
# bookworm-backports (tools/deps.sh, from the Makefile).
#
# Incremental: the tarball, the unpacked tree and the configured build
# are kept; a changed tsnep.c only recompiles that file.
# Prints the binary's path last: build/qemu/src/build/qemu-system-x86_64.

set -euo pipefail

REPO=$(cd "$(dirname "$0")/../.." && pwd)
Q=$REPO/build/qemu
SRC=$Q/src
APT=$Q/apt

die() { echo "qemu/build: error: $*" >&2; exit 1; }

ver=$(dpkg-query -W -f='${Version}' qemu-system-x86 2>/dev/null) ||
	die "qemu-system-x86 is not installed: tools/qemu-deps.sh"
upstream=${ver#*:}
upstream=${upstream%-*}		# 10.0.2+ds
tarball=$Q/dl/qemu_$upstream.orig.tar.xz

fetch() {
	local uri sb opts
	read -r uri sb < <("$REPO/tools/qemu-deps.sh" --archive) ||
		die "no apt source for bookworm found"
	mkdir -p "$APT/lists/partial" "$APT/cache/archives/partial" "$Q/dl"
	opts=
	[ "$sb" = - ] || opts="[signed-by=$sb] "
	echo "deb-src $opts$uri bookworm-backports main" > "$APT/sources.list"
	local apt=(apt-get -q -o Dir::Etc::SourceList="$APT/sources.list"
		   -o Dir::Etc::SourceParts=/dev/null
		   -o Dir::State::Lists="$APT/lists"
		   -o Dir::Cache="$APT/cache"
		   -o APT::Sandbox::User=root)
	echo "qemu/build: fetching the source of qemu $ver" >&2
	"${apt[@]}" update >/dev/null
	# The orig tarball is all this build needs: the archive may serve it
	# without the .dsc and the Debian diff, and apt then fails the rest.
	(cd "$Q/dl" && "${apt[@]}" source --download-only "qemu=$ver" >/dev/null 2>&1) || true
	[ -f "$tarball" ] || die "could not fetch qemu_$upstream.orig.tar.xz"
}

unpack() {
	echo "qemu/build: unpacking qemu $upstream" >&2
	rm -rf "$SRC" "$Q/unpack"
	mkdir -p "$Q/unpack"
	tar -xJf "$tarball" -C "$Q/unpack"
	mv "$Q/unpack"/qemu-* "$SRC"
	rmdir "$Q/unpack"
	# no EDK2 images in the +ds tarball: do not unpack them
	sed -i 's/^\( *\)unpack_edk2_blobs = bzip2.found()$/\1unpack_edk2_blobs = false/' \
		"$SRC/meson.build"
	grep -q tsnep.c "$SRC/hw/net/meson.build" ||
		echo "system_ss.add(when: 'CONFIG_TSNEP_PCI', if_true: files('tsnep.c'))" \
			>> "$SRC/hw/net/meson.build"
	grep -q TSNEP_PCI "$SRC/hw/net/Kconfig" ||
		printf '\nconfig TSNEP_PCI\n    bool\n    depends on PCI && MSI_NONBROKEN\n' \
			>> "$SRC/hw/net/Kconfig"
	echo "$upstream" > "$SRC/.xskzc-version"
}

[ -f "$tarball" ] || fetch
[ "$(cat "$SRC/.xskzc-version" 2>/dev/null)" = "$upstream" ] || unpack

cat > "$SRC/configs/devices/x86_64-softmmu/xskzc.mak.new" <<'EOF'
CONFIG_Q35=y
CONFIG_SERIAL_ISA=y
CONFIG_VIRTIO_PCI=y
CONFIG_VIRTIO_9P=y
CONFIG_TSNEP_PCI=y
EOF
cmp -s "$SRC/configs/devices/x86_64-softmmu/xskzc.mak"{.new,} ||
	mv "$SRC/configs/devices/x86_64-softmmu/xskzc.mak"{.new,}
rm -f "$SRC/configs/devices/x86_64-softmmu/xskzc.mak.new"
cmp -s "$REPO/tools/qemu/tsnep.c" "$SRC/hw/net/tsnep.c" ||
	cp "$REPO/tools/qemu/tsnep.c" "$SRC/hw/net/tsnep.c"

if [ ! -f "$SRC/build/build.ninja" ]; then
	echo "qemu/build: configuring (x86_64-softmmu, no default features or devices)" >&2
	(cd "$SRC" && ./configure --python=/usr/bin/python3 \
		--target-list=x86_64-softmmu \
		--without-default-features --without-default-devices \
		--with-devices-x86_64=xskzc \
		--enable-tcg --enable-attr --enable-virtfs \
		--disable-docs --disable-tools --disable-guest-agent \
		--disable-install-blobs --disable-werror \
		> "$Q/configure.log" 2>&1) ||
		die "configure failed: build/qemu/configure.log"
fi
ninja -C "$SRC/build" qemu-system-x86_64 > "$Q/ninja.log" 2>&1 ||
	{ tail -n 30 "$Q/ninja.log" >&2; die "build failed: build/qemu/ninja.log"; }
echo "$SRC/build/qemu-system-x86_64"
