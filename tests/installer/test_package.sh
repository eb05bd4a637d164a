#!/usr/bin/env bash
# Packages a build with CPack (DEB and TGZ) and checks what a user would get: the .deb's file list and
# control fields, the desktop entry and AppStream metainfo, and that the unpacked .deb and .tar.gz
# trees run from wherever they are put, finding their own data (HEADROOM_RESOURCES unset).
#
#   test_package.sh --build-dir DIR --source-dir DIR --version X.Y.Z --app-id ID [--gui ON|OFF]
#                   [--cpack PATH]
#
# Needs (Debian): cmake (cpack), dpkg-dev and file (dpkg-shlibdeps), desktop-file-utils, appstream.
# Writes only into a temporary directory, removed on exit; the build directory is left as it was.

set -uo pipefail

build_dir="" source_dir="" version="" app_id="" gui="ON" cpack="cpack"
while (($#)); do
    case "$1" in
        --build-dir) build_dir="$2"; shift 2 ;;
        --source-dir) source_dir="$2"; shift 2 ;;
        --version) version="$2"; shift 2 ;;
        --app-id) app_id="$2"; shift 2 ;;
        --gui) gui="$2"; shift 2 ;;
        --cpack) cpack="$2"; shift 2 ;;
        *) echo "test_package.sh: unknown argument '$1'" >&2; exit 2 ;;
    esac
done
if [[ -z "$build_dir" || -z "$source_dir" || -z "$version" || -z "$app_id" ]]; then
    echo "usage: test_package.sh --build-dir DIR --source-dir DIR --version X.Y.Z --app-id ID [--gui ON|OFF] [--cpack PATH]" >&2
    exit 2
fi
case "$gui" in
    ON | on | 1 | TRUE | true) gui=1 ;;
    *) gui=0 ;;
esac

failures=0
fail() {
    echo "FAIL: $*" >&2
    failures=$((failures + 1))
}
die() {
    echo "FAIL: $*" >&2
    exit 1
}
pass() { echo "ok: $*"; }

# Prints a command's output, indented, under a heading (for failure messages).
show() {
    local heading="$1" text="$2"
    echo "  $heading:" >&2
    if [[ -n "$text" ]]; then
        # shellcheck disable=SC2001 # a prefix on every line, not one substitution
        sed 's/^/    | /' <<<"$text" >&2
    else
        echo "    | (nothing)" >&2
    fi
}

for tool in "$cpack" dpkg-deb dpkg-shlibdeps file desktop-file-validate appstreamcli tar; do
    command -v "$tool" >/dev/null 2>&1 ||
        die "'$tool' not found; install cmake, dpkg-dev, file, desktop-file-utils and appstream"
done
[[ -f "$build_dir/CPackConfig.cmake" ]] ||
    die "$build_dir/CPackConfig.cmake missing: configure the project first (cmake -S . -B $build_dir)"

tmp="$(mktemp -d "${TMPDIR:-/tmp}/headroom-package-test.XXXXXX")" || die "cannot create a temporary directory"
cleanup() { rm -rf "$tmp"; }
trap cleanup EXIT

# --- Package ------------------------------------------------------------------------------------------
# cpack installs the build tree into its own staging area under -B: the build must be up to date.
for generator in DEB TGZ; do
    if ! (cd "$build_dir" && "$cpack" -G "$generator" -B "$tmp/cpack" --config CPackConfig.cmake) \
        >"$tmp/cpack-$generator.log" 2>&1; then
        show "cpack -G $generator output" "$(cat "$tmp/cpack-$generator.log")"
        die "cpack -G $generator failed (is the headroom executable built? cmake --build $build_dir)"
    fi
    pass "cpack -G $generator"
done

arch="$(dpkg --print-architecture)"
deb="$tmp/cpack/headroom_${version}_${arch}.deb"
tgz="$tmp/cpack/headroom-${version}-Linux.tar.gz"
[[ -f "$deb" ]] || die "expected $(basename "$deb"), got: $(cd "$tmp/cpack" && ls -- *.deb 2>/dev/null)"
[[ -f "$tgz" ]] || die "expected $(basename "$tgz"), got: $(cd "$tmp/cpack" && ls -- *.tar.gz 2>/dev/null)"
pass "package files $(basename "$deb") and $(basename "$tgz")"

# --- The .deb's contents --------------------------------------------------------------------------------
# Regular files and links only, as absolute paths: "/usr/bin/headroom".
deb_files="$(dpkg-deb -c "$deb" | awk '$1 !~ /^d/ {print $6}' | sed 's|^\./|/|')" || die "dpkg-deb -c $deb failed"

expected=(
    /usr/bin/headroom
    /usr/share/headroom/gpus.json
    /usr/share/headroom/presets/lenet5.json
    # The documentation Help > User Guide and the error messages point at.
    /usr/share/doc/headroom/user-guide.md
    /usr/share/doc/headroom/onnx-import.md
    /usr/share/doc/headroom/images/main-window-vgg16.png
)
# Every preset in the source tree must ship (a new preset needs a line in resources/CMakeLists.txt).
for preset in "$source_dir"/resources/presets/*.json; do
    [[ -e "$preset" ]] && expected+=("/usr/share/headroom/presets/$(basename "$preset")")
done
if ((gui)); then
    expected+=(
        "/usr/share/applications/$app_id.desktop"
        "/usr/share/metainfo/$app_id.metainfo.xml"
        "/usr/share/mime/packages/$app_id.xml"
        "/usr/share/icons/hicolor/scalable/apps/$app_id.svg"
    )
    for size in 16 22 24 32 48 64 128 256; do
        expected+=("/usr/share/icons/hicolor/${size}x${size}/apps/$app_id.png")
    done
fi
missing=()
for path in "${expected[@]}"; do
    grep -qxF -- "$path" <<<"$deb_files" || missing+=("$path")
done
if ! grep -qE '^/usr/share/man/man1/headroom\.1(\.gz)?$' <<<"$deb_files"; then
    missing+=("/usr/share/man/man1/headroom.1.gz")
fi
if ((${#missing[@]})); then
    fail "the .deb lacks ${#missing[@]} file(s): ${missing[*]}"
    show "files in the .deb" "$deb_files"
else
    pass "the .deb holds the binary, data, presets, man page$( ((gui)) && echo ', desktop entry, metainfo, MIME type and icons')"
fi
# Development files (a static core library, headers) or /usr/local paths do not belong in it.
stray="$(grep -E '^/usr/(local|include)/|\.(a|h|cmake)$' <<<"$deb_files")"
[[ -z "$stray" ]] || fail "the .deb holds files it should not: $(tr '\n' ' ' <<<"$stray")"

# --- Control fields -----------------------------------------------------------------------------------
field() { dpkg-deb -f "$deb" "$1" 2>/dev/null; }
[[ "$(field Package)" == headroom ]] || fail "Package is '$(field Package)', expected 'headroom'"
[[ "$(field Version)" == "$version" ]] || fail "Version is '$(field Version)', expected '$version'"
[[ "$(field Architecture)" == "$arch" ]] || fail "Architecture is '$(field Architecture)', expected '$arch'"
[[ -n "$(field Maintainer)" ]] || fail "Maintainer is empty"
[[ -n "$(field Description)" ]] || fail "Description is empty"
depends="$(field Depends)"
if [[ -z "$depends" ]]; then
    fail "Depends is empty: dpkg-shlibdeps found no libraries (CPACK_DEBIAN_PACKAGE_SHLIBDEPS)"
elif ! grep -q 'libqt6' <<<"$depends"; then
    fail "Depends does not mention Qt 6: $depends"
elif [[ "$gui" == 1 ]] && ! grep -q 'qt6-translations-l10n' <<<"$depends"; then
    fail "Depends does not name qt6-translations-l10n (Qt's own dialogs in Chinese and Korean): $depends"
else
    pass "Depends: $depends"
fi

# --- Unpack -------------------------------------------------------------------------------------------
root="$tmp/deb-root"
mkdir -p "$root" "$tmp/tgz-root"
dpkg-deb -x "$deb" "$root" || die "dpkg-deb -x $deb failed"
tar -xzf "$tgz" -C "$tmp/tgz-root" || die "tar -xzf $tgz failed"
tgz_prefix="$tmp/tgz-root/headroom-${version}-Linux"
[[ -x "$tgz_prefix/bin/headroom" ]] || die "the .tar.gz has no headroom-${version}-Linux/bin/headroom"

# --- Desktop entry and metainfo -------------------------------------------------------------------------
if ((gui)); then
    desktop="$root/usr/share/applications/$app_id.desktop"
    metainfo="$root/usr/share/metainfo/$app_id.metainfo.xml"
    if out="$(desktop-file-validate "$desktop" 2>&1)" && [[ -z "$out" ]]; then
        pass "desktop-file-validate $app_id.desktop"
    else
        fail "desktop-file-validate rejects $app_id.desktop"
        show "desktop-file-validate" "$out"
    fi
    grep -qxF "Icon=$app_id" "$desktop" || fail "$app_id.desktop does not use Icon=$app_id"
    if out="$(appstreamcli validate --no-net "$metainfo" 2>&1)"; then
        pass "appstreamcli validate --no-net $app_id.metainfo.xml"
    else
        fail "appstreamcli validate rejects $app_id.metainfo.xml"
        show "appstreamcli validate" "$out"
    fi
    # validate-tree also checks that the metainfo, desktop entry and icons fit together.
    if out="$(appstreamcli validate-tree --no-net "$root" 2>&1)"; then
        pass "appstreamcli validate-tree --no-net (unpacked .deb)"
    else
        fail "appstreamcli validate-tree rejects the unpacked .deb"
        show "appstreamcli validate-tree" "$out"
    fi
    grep -qF "<id>$app_id</id>" "$metainfo" || fail "$app_id.metainfo.xml does not have <id>$app_id</id>"
    grep -qF "version=\"$version\"" "$metainfo" || fail "$app_id.metainfo.xml has no release $version"
fi

# --- Run the unpacked trees ---------------------------------------------------------------------------
# Runs the unpacked headroom with no resource override and no display; output in $tmp/out, $tmp/err.
run() {
    local exe="$1"
    shift
    env -u HEADROOM_RESOURCES QT_QPA_PLATFORM=offscreen "$exe" "$@" >"$tmp/out" 2>"$tmp/err"
}
check_tree() {
    local name="$1" prefix="$2"
    local exe="$prefix/bin/headroom" preset="$prefix/share/headroom/presets/lenet5.json"

    local rc
    run "$exe" --version
    rc=$?
    if ((rc == 0)) && grep -qF -- "$version" "$tmp/out"; then
        pass "$name: headroom --version prints $version"
    else
        fail "$name: 'headroom --version' exits $rc and does not print $version"
        show "stdout" "$(cat "$tmp/out")"
        show "stderr" "$(cat "$tmp/err")"
    fi

    run "$exe" estimate "$preset" --json
    rc=$?
    if ((rc == 0)) && grep -qF '"max_batch"' "$tmp/out"; then
        if command -v python3 >/dev/null 2>&1 && ! python3 -c 'import json, sys; json.load(sys.stdin)' <"$tmp/out" 2>/dev/null; then
            fail "$name: 'headroom estimate lenet5.json --json' prints invalid JSON"
            show "stdout" "$(cat "$tmp/out")"
        else
            pass "$name: headroom estimate lenet5.json --json"
        fi
    else
        fail "$name: 'headroom estimate $preset --json' exits $rc; \"max_batch\" expected in its JSON"
        show "stdout" "$(cat "$tmp/out")"
        show "stderr" "$(cat "$tmp/err")"
    fi

    if run "$exe" gpus && [[ -s "$tmp/out" ]]; then
        pass "$name: headroom gpus"
    else
        fail "$name: 'headroom gpus' failed or printed nothing"
        show "stderr" "$(cat "$tmp/err")"
    fi

    # Proof that the catalogue read is the unpacked one, not the source tree's (the last fallback of
    # the lookup): with the unpacked gpus.json broken, 'headroom gpus' must fail.
    local catalogue="$prefix/share/headroom/gpus.json"
    cp "$catalogue" "$tmp/gpus.json.orig"
    printf '{ this is not JSON\n' >"$catalogue"
    if run "$exe" gpus; then
        fail "$name: 'headroom gpus' still succeeds with the unpacked gpus.json broken: it reads another catalogue (the source tree's?)"
    else
        pass "$name: the unpacked tree reads its own share/headroom/gpus.json"
    fi
    cp "$tmp/gpus.json.orig" "$catalogue"
}
check_tree ".deb" "$root/usr"
check_tree ".tar.gz" "$tgz_prefix"

if ((failures)); then
    echo "$failures check(s) failed" >&2
    exit 1
fi
echo "all package checks passed"
