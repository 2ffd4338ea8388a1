#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-only
#
# tools/insn-profile.pl [-n TOP] [-f FRAMES] [-c CPU] System.map
# profile.txt - where a bench point's guest kernel instructions go, by
# kernel function.
#
# profile.txt is the TCG plugin's profile (tools/qemu/xskzc-insn.c,
# profile=): one line "VADDR N_INSNS EXECS E0 E1..." per translation of
# a kernel block that ran between the first and the last mark of the
# run. Each block goes to the text symbol of System.map (lines "ADDR
# TYPE NAME", types t, T, W, w) that contains its address, up to the
# next symbol of any type; addresses before the first symbol, in none
# (past a data symbol or a section marker such as _etext) go to
# [unknown], those of the module area, where BPF programs are JITed
# (the XDP programs of xsk-bench), to [modules/bpf]. A block translated
# more than once has a line per translation: they add up. Prints the
# TOP (default 25; 0: all) symbols by instructions (N_INSNS * EXECS,
# summed), with their percent of the total, the other symbols on one
# line, then the total.
#
#  -f FRAMES  also the instructions per frame (one decimal)
#  -c CPU     the executions of vCPU CPU only (E<CPU>), not of all
#
# A profile, for one point:
#
#   XSKZC_PROFILE=1 make bench BENCH_NICS=igb BENCH_ONLY="rxdrop zc 64" \
#	BENCH_SECS=5
#
# (BENCH_REPS and BENCH_SECS as usual; it needs BENCH_INSN=1, the
# default). The profile is build/guest-run/bench/profile.txt (tsnep's,
# BENCH_NICS=tsnep: build/guest-run/bench-tsnep/; the pristine kernel's
# of "make bench-peers": build/guest-run/bench-pristine/, against
# build/guest-x86_64-pristine/System.map), next to insn.txt, the
# plugin's marks, and points.csv:
#
#   tools/insn-profile.pl -c 1 -f FRAMES build/guest-x86_64/System.map \
#	build/guest-run/bench/profile.txt
#
# It spans the whole guest run, from the first mark to the last: one
# point per run (BENCH_ONLY="BENCH MODE SIZE"; drop's mode is xdp-drop).
#
# The window: only the measuring xsk-bench marks (-K; nicb's for drop,
# rxdrop and l2fwd, nica's for txonly and xdptx), once at its first frame
# (drop: the first 50 ms poll that sees the XDP_DROP counter move), then
# at the end of each interval it prints ("t=" lines in
# build/guest-run/bench/bench/BENCH-SIZE-MODE.B.log, .A.log for txonly
# and xdptx), -I SECS apart. So the profile covers the point's intervals
# back to back, not the setup before the first frame (socket, bind,
# program), nor the stream's end and the teardown. bench.sh takes the
# first REPS intervals; the profile has every interval printed: REPS of
# them with BENCH_SECS of 5 or more (insn.txt then has REPS + 1 marks
# per point), but with shorter ones the stream's end (the generator runs
# REPS * SECS + 2 s; the receiver stops 2 s after the last frame) may
# fall into one more, idle in part. Each mark's reading of insn.txt (a
# 9p open and read) counts in the next interval.
#
# -c 1: the plugin counts every vCPU, but points.csv's insn column counts
# vCPU 1 only, the device under test's (its interrupts, its xsk-bench):
# -c 1 is the breakdown of that figure. Its total over the window is the
# mean of the intervals, points.csv's the median of the first REPS.
#
# FRAMES: the frames of the window, from the measuring log's t= lines:
# the count (rx=, tx= for l2fwd and txonly) of the last line, less what
# it was at the first mark (the first interval's start: about the first
# line's count less its rate times SECS). With FIELD rx or tx and SECS:
#
#   awk -v f=rx -v s=5 '/^t=/ { for (i = 1; i <= NF; i++) {
#	split($i, kv, "="); v[kv[1]] = kv[2] }
#	if (!n++) b = v[f] - v[f "_pps"] * s; e = v[f] }
#	END { printf "%.0f\n", e - b }' LOG
#
# (the last line's count alone is over by the frames before the first
# mark: one batch, or the first 50 ms poll's for drop, below 0.3%).
#
# profile= adds a callback to every kernel block: the guest kernel runs
# slower, the rates of a profiled run are not the bench's, and its
# instructions per frame may move with them (more frames per interrupt
# when the kernel is slower); the run's own points.csv has the insn
# figure to compare the -c 1 total with.
# The last line compares the profile's total with the plugin's inline
# count over the same window (profile.txt's "# kernel" line): the same
# on the vCPU that marks (1; 0 for xdptx, whose measuring xsk-bench is
# the generator, on vCPU 0), within a few blocks on the others, which
# run on while a mark takes its snapshot.

use strict;
use warnings;
no warnings 'portable';	# 64-bit hex addresses
use Getopt::Std;

sub fail {
	print STDERR 'insn-profile: ', @_, "\n";
	exit 2;
}

sub usage {
	print STDERR "usage: insn-profile.pl [-n TOP] [-f FRAMES] [-c CPU] System.map profile.txt\n";
	exit 2;
}

my %opt;
getopts('n:f:c:', \%opt) or usage();
usage() unless @ARGV == 2;
my ($map, $prof) = @ARGV;
my $top = $opt{n} // 25;
my $frames = $opt{f};
my $cpu = $opt{c};
fail("-n $top: a number") unless $top =~ /^\d+$/;
fail("-f $frames: a number of frames above 0")
	if defined $frames && !($frames =~ /^\d+(\.\d+)?$/ && $frames > 0);
fail("-c $cpu: a vCPU number")
	if defined $cpu && $cpu !~ /^\d+$/;

# x86-64's module area, where the BPF JIT puts its programs too
my $MODULES_START = hex('ffffffffa0000000');
my $MODULES_END = hex('ffffffffff000000');

# Section markers: they name no code, they end the symbol before them.
sub is_marker {
	my ($name) = @_;

	return $name =~ /^(_stext|_text|_etext|_sinittext|_einittext|
			   __inittext_end|__pi__text)$/x ||
	       $name =~ /^__\w*text_(start|end)$/;
}

# The better name of two functions at one address: not a __pi_ alias,
# then a global one, then the first.
sub rank {
	my ($type, $name) = @_;

	return ($name =~ /^__pi_/ ? 0 : 2) + ($type eq 'T' ? 1 : 0);
}

# System.map: addresses in @addr, sorted, and their names in @name (undef:
# the end of a symbol, no code of its own).
my (%at, %rank);
open(my $mf, '<', $map) or fail("$map: $!");
while (my $l = <$mf>) {
	my ($hexa, $type, $name) = split(' ', $l);

	next unless defined $name && $hexa =~ /^[0-9a-fA-F]{1,16}$/;
	next if $type =~ /^[aAuUN]$/;	# absolute, undefined, debug
	my $v = hex($hexa);
	if ($type =~ /^[tTwW]$/ && !is_marker($name)) {
		my $r = rank($type, $name);

		if (!defined $at{$v} || $rank{$v} < $r) {
			$at{$v} = $name;
			$rank{$v} = $r;
		}
	} elsif (!exists $at{$v}) {
		$at{$v} = undef;
		$rank{$v} = -1;
	}
}
close($mf);
my @addr = sort { $a <=> $b } keys %at;
my @name = map { $at{$_} } @addr;
fail("$map: no text symbol") unless grep { defined } @name;

# the symbol that contains address $v
sub symbol_of {
	my ($v) = @_;
	my ($lo, $hi) = (0, $#addr);

	return region_of($v) if $v < $addr[0];
	while ($lo < $hi) {	# the last $addr[i] <= $v
		my $mid = int(($lo + $hi + 1) / 2);

		if ($addr[$mid] <= $v) {
			$lo = $mid;
		} else {
			$hi = $mid - 1;
		}
	}
	# past the image's last symbol: no code of the image
	return region_of($v)
		if $v >= $MODULES_START && $addr[$lo] < $MODULES_START;
	return $name[$lo] // region_of($v);
}

sub region_of {
	my ($v) = @_;

	return '[modules/bpf]' if $v >= $MODULES_START && $v < $MODULES_END;
	return '[unknown]';
}

my (%insns, $total, $marks, @kernel);
my $records = 0;
open(my $pf, '<', $prof) or fail("$prof: $!");
while (my $l = <$pf>) {
	if ($l =~ /^#/) {
		$marks = $1 if $l =~ /^# marks (\S+)/;
		@kernel = split(' ', $1) if $l =~ /^# kernel\s+(.*)/;
		next;
	}
	next if $l =~ /^\s*$/;
	my ($va, $n, $execs, @per) = split(' ', $l);

	fail("$prof:$.: not \"VADDR N_INSNS EXECS ...\"")
		unless defined $execs && $va =~ /^[0-9a-fA-F]{1,16}$/ &&
		       "$n$execs@per" =~ /^[\d ]+$/;
	if (defined $cpu) {
		fail("$prof:$.: no count of vCPU $cpu")
			unless defined $per[$cpu];
		$execs = $per[$cpu];
	}
	next unless $execs;
	my $sym = symbol_of(hex($va));

	$insns{$sym} += $n * $execs;
	$total += $n * $execs;
	$records++;
}
close($pf);
fail("$prof: no \"# marks\" line: not a profile of xskzc-insn")
	unless defined $marks;
$total //= 0;

my @syms = sort { $insns{$b} <=> $insns{$a} || $a cmp $b } keys %insns;
my $shown = $top && $top < @syms ? $top : scalar(@syms);
my $who = defined $cpu ? "vCPU $cpu" : 'all vCPUs';

printf "# %s: marks %s, %s: %d blocks in %d symbols\n",
	$prof, $marks, $who, $records, scalar(@syms);
printf "%16s %7s%s  %s\n", 'instructions', '%',
	defined $frames ? sprintf(' %12s', 'insn/frame') : '', 'symbol';

sub line {
	my ($n, $what) = @_;

	printf "%16d %6.2f%%%s  %s\n", $n, $total ? 100 * $n / $total : 0,
		defined $frames ? sprintf(' %12.1f', $n / $frames) : '', $what;
}

line($insns{$_}, $_) for @syms[0 .. $shown - 1];
if ($shown < @syms) {
	my $rest = 0;

	$rest += $insns{$_} for @syms[$shown .. $#syms];
	line($rest, sprintf('(%d other symbols)', @syms - $shown));
}
line($total, defined $frames ? "total, $frames frames" : 'total');

# the plugin's inline count over the window, for the same vCPUs
if (@kernel) {
	my $k;

	if (!defined $cpu) {
		$k = 0;
		$k += $_ for @kernel;
	} elsif (defined $kernel[$cpu]) {
		$k = $kernel[$cpu];
	}
	printf "# the plugin's inline kernel count over the window: %d (the profile: %.3f%% of it)\n",
		$k, $k ? 100 * $total / $k : 0 if defined $k;
}
exit 0;
