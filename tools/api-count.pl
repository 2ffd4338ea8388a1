#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-only
#
# tools/api-count.pl KSRC TARGETS - the size of the library's driver API
# and who may call what, on the staged tree KSRC, for the driver
# directories of TARGETS (tools/lint-targets.txt, "ARCH drivers/...").
#
# Prints, per driver directory, the library entry points its files call
# (functions and macros of the public headers include/net/xsk_zc.h and
# include/net/xsk_zc/*.h whose name does not start with "__": distinct
# names and call sites) and the callback slots of the library's tables
# (struct xsk_zc_* members that are function pointers) its static const
# tables fill. These are counts, not findings: the goals of the thin API
# (issue 35: at most 8 entry points and 10 callbacks per driver) become
# findings once the drivers are ported to it.
#
# Findings, one line each:
#  - an export of lib/xsk_zc/ outside the "XSK_ZC" symbol namespace
#    (EXPORT_SYMBOL_NS_GPL(sym, "XSK_ZC")), but EXPORT_SYMBOL_IF_KUNIT;
#  - an exported entry point that no driver calls;
#  - an exported "__" symbol, the out-of-line half of a header inline,
#    that the headers' code does not call;
#  - a driver file naming a "__xsk_zc_" symbol, or one exported for
#    KUnit only: library internals;
#  - a driver directory that calls the library with no
#    MODULE_IMPORT_NS("XSK_ZC") in its files (modpost catches it only
#    where the driver is built as a module).
#
# Comments are stripped before anything is read. Ends with
# "api: N findings in M exports" and exits 1 on a finding, 0 if none,
# 2 if it could not check (no header, no export, a driver directory
# with no library call).

use strict;
use warnings;

my ($ksrc, $targets) = @ARGV;
die "usage: api-count.pl KSRC TARGETS\n" unless defined $targets;

sub slurp {
	my ($f) = @_;
	local $/;
	open my $fh, '<', $f or die "api: error: $f: $!\n";
	my $t = <$fh>;
	# comments out, line count kept
	$t =~ s{/\*.*?\*/}{my $c = $&; "\n" x ($c =~ tr/\n//)}gse;
	$t =~ s{//[^\n]*}{}g;
	return $t;
}

my $tool_fail = 0;
sub tool_failed { print "api: error: @_\n"; $tool_fail++; }

# --- the public headers: entry points and callback slots ---------------

my @hdrs = grep { -f } ("$ksrc/include/net/xsk_zc.h",
			glob("$ksrc/include/net/xsk_zc/*.h"));
tool_failed('no public header include/net/xsk_zc*.h') unless @hdrs;
my (%api, %internal_in_hdr, %cb, $hdr_code);
for my $h (@hdrs) {
	my $t = slurp($h);
	$hdr_code .= $t;
	for my $n ($t =~ /\b(xsk_zc_[a-z0-9_]+)\s*\(/g) {
		$api{$n} = 1;
	}
	for my $n ($t =~ /\b(__xsk_zc_[a-z0-9_]+)\s*\(/g) {
		$internal_in_hdr{$n} = 1;
	}
	while ($t =~ /struct\s+(xsk_zc_\w+)\s*\{(.*?)\n\};/gs) {
		my ($type, $body) = ($1, $2);
		$cb{$type}{$_} = 1 for $body =~ /\(\s*\*\s*(\w+)\s*\)\s*\(/g;
	}
}
tool_failed('the public headers declare no xsk_zc_ function') unless %api;
tool_failed('the public headers define no callback table') unless %cb;

# --- the driver directories ---------------------------------------------

open my $tf, '<', $targets or die "api: error: $targets: $!\n";
my %dirs;
while (<$tf>) {
	next if /^\s*#/;
	my @f = split;
	$dirs{$f[1]} = 1 if @f == 2 && $f[1] =~ m{^drivers/};
}
close $tf;
tool_failed("no driver directory in $targets") unless %dirs;

my (%drv_calls, @findings);
for my $d (sort keys %dirs) {
	my (%calls, $sites, %slots, $tables, $imports);
	$sites = 0;
	$imports = 0;
	$tables = 0;
	for my $f (sort glob("$ksrc/$d*.[ch]")) {
		my $t = slurp($f);
		(my $rel = $f) =~ s{^\Q$ksrc\E/}{};
		$imports++ if $t =~ /^MODULE_IMPORT_NS\("XSK_ZC"\);/m;
		my @lines = split /\n/, $t, -1;
		for my $i (0 .. $#lines) {
			for my $n ($lines[$i] =~ /\b(__xsk_zc_[a-z0-9_]+)\b/g) {
				push @findings, "$rel:" . ($i + 1) .
					": $n is a library internal: a driver calls the entry points of <net/xsk_zc.h>";
			}
			for my $n ($lines[$i] =~ /(?<![\w])(xsk_zc_[a-z0-9_]+)\s*\(/g) {
				next unless $api{$n};
				$calls{$n}++;
				$sites++;
				$drv_calls{$n}{$rel} = $i + 1;
			}
		}
		while ($t =~ /(?:static\s+)?const\s+struct\s+(xsk_zc_\w+)\s+\w+\s*=\s*\{(.*?)\n\};/gs) {
			my ($type, $body) = ($1, $2);
			next unless $cb{$type};
			$tables++;
			for my $m ($body =~ /\.(\w+)\s*=\s*[A-Za-z_]\w*\s*[,\n}]/g) {
				$slots{"$type.$m"} = 1 if $cb{$type}{$m};
			}
		}
	}
	(my $name = $d) =~ s{/$}{};
	$name =~ s{.*/}{};
	if (!$sites) {
		tool_failed("$d: no file calls the library: nothing counted");
		next;
	}
	push @findings, "$d: calls the library and no file has MODULE_IMPORT_NS(\"XSK_ZC\")"
		unless $imports;
	printf "api: %s: %d entry points in %d calls, %d callback slots in %d tables\n",
		$name, scalar(keys %calls), $sites, scalar(keys %slots), $tables;
}

# --- exports ----------------------------------------------------------------

my $nexp = 0;
for my $f (sort glob("$ksrc/lib/xsk_zc/*.c")) {
	my $t = slurp($f);
	(my $rel = $f) =~ s{^\Q$ksrc\E/}{};
	my @lines = split /\n/, $t, -1;
	for my $i (0 .. $#lines) {
		next unless $lines[$i] =~ /^\s*(EXPORT_SYMBOL\w*)\s*\(\s*(\w+)\s*(?:,\s*("?)(\w+)\3\s*)?\)/;
		my ($macro, $sym, $ns) = ($1, $2, $4);
		my $at = "$rel:" . ($i + 1) . ": $sym";
		$nexp++;
		if ($macro eq 'EXPORT_SYMBOL_IF_KUNIT') {
			for my $u (sort keys %{$drv_calls{$sym} // {}}) {
				push @findings, "$u: $sym is exported for KUnit only";
			}
			next;
		}
		if ($macro ne 'EXPORT_SYMBOL_NS_GPL' || ($ns // '') ne 'XSK_ZC') {
			push @findings, "$at: exported by $macro" .
				(defined $ns ? "($ns)" : '') .
				', not in the XSK_ZC namespace (EXPORT_SYMBOL_NS_GPL(sym, "XSK_ZC"))';
		}
		if ($sym =~ /^__/) {
			push @findings, "$at: an internal export no header inline calls"
				unless $internal_in_hdr{$sym};
		} elsif (!$drv_calls{$sym}) {
			push @findings, "$at: exported, and no driver calls it";
		}
	}
}
tool_failed('lib/xsk_zc/ exports nothing') unless $nexp;

print "api: $_\n" for @findings;
printf "api: %d findings in %d exports\n", scalar(@findings), $nexp;
exit 2 if $tool_fail;
exit(@findings ? 1 : 0);
