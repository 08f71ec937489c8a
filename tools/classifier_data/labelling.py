"""The labelling guide, applied: a command's level by what it does, independent of wisp's rules.

The guide (``wisp/policy/classifier/README.md``, "Labelling guide"):

* **safe**: reads and changes nothing (a listing, a search, a diff, a status, a DNS lookup);
* **moderate**: changes files or state within the project or the person's own reach, in a way
  that can be undone or redone (edits, builds, tests, installs into the project, commits,
  downloads, signals to a process, starting a container), or talks to a network service;
* **dangerous**: destroys data that cannot be had back (recursive or forced deletion, a wiped
  disk, a hard reset, a dropped database), escalates privilege (``sudo``, setuid, another user),
  changes the system's state (system packages, services, users, mounts, the firewall, the
  kernel, boot), reads or sends credentials, or sends local data elsewhere (uploads, posts).

This module is the author's judgement written down once, per program, verb and option, with the
example's own description (tldr's ``- Delete a file:``) for programs whose examples differ. It was
written without reading ``wisp/policy/rules.json``: the rules must not grade themselves.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Literal

Level = Literal["safe", "moderate", "dangerous"]
SAFE: Level = "safe"
MODERATE: Level = "moderate"
DANGEROUS: Level = "dangerous"


def _names(text: str) -> frozenset[str]:
    return frozenset(text.split())


ESCALATE = _names("sudo doas su pkexec run0 runuser sudoedit setpriv ksu")
WRAPPERS = _names("env nice nohup time timeout stdbuf ionice command exec chronic unbuffer")

READERS = _names(
    "ls cat head tail less more wc file stat du df tree basename dirname realpath readlink md5sum "
    "sha1sum sha224sum sha256sum sha384sum sha512sum b2sum b3sum cksum sum diff cmp strings "
    "hexdump od xxd hd nm size readelf objdump column cut tr comm paste fold nl rev sort uniq jq "
    "yq gron jless fx grep egrep fgrep rg ag ack which whereis type man info apropos whatis ps "
    "pgrep pstree lsof netstat ss pwd whoami id uname hostname uptime date cal free lsblk lscpu "
    "lsusb lspci lsmod echo printf true false seq expr bc dc factor numfmt tty locale groups users "
    "who w last lastlog finger pinky top htop btop btm glances vmstat iostat mpstat pidstat nproc "
    "getconf arch lsb_release tldr bat exa eza lsd fd fdfind fzf delta difft colordiff wdiff "
    "highlight glow mdcat most pv tokei cloc scc onefetch neofetch fastfetch dust duf ncdu gdu "
    "dua ping ping6 dig nslookup host whois traceroute tracepath drill doggo dog mtr arping "
    "identify mediainfo ffprobe pdfinfo pdffonts lsar zipinfo xmllint csvlook csvstat csvcut "
    "csvgrep csvsort mlr xsv shellcheck hadolint yamllint jsonlint flake8 pylint mypy pyright "
    "cppcheck golangci-lint vale markdownlint stylelint tflint checkov trivy grype gitleaks "
    "semgrep bandit hyperfine findmnt blkid lsattr getfacl namei lslocks lsipc ipcs lsns "
    "dmidecode inxi hwinfo sensors acpi upower iwconfig iwlist ethtool nmblookup ldd file "
    "tput tac look shuf wdctl dircolors printenv env locate mlocate plocate whatis stat test "
    "cowsay figlet toilet lolcat fortune sl cmatrix asciiquarium banner rig pastel units calc "
    "qalc numbat ipcalc sipcalc cheat navi howdoi jp ajson jc htmlq pup xq dasel lnav "
    "goaccess ccze multitail xdpyinfo xrandr glxinfo vainfo vdpauinfo nvidia-smi lstopo "
    "gitk tig lazygit gitui git-quick-stats git-standup git-summary git-effort git-fame "
    "mmdblookup geoiplookup exiv2 mp3info id3info metaflac pdfgrep pdftotext pdfimages ssh-keyscan"
)
NETWORK_READERS = _names("curl wget http https httpie xh aria2c axel lynx links w3m elinks")
WRITERS = _names(
    "cp mv mkdir touch ln rmdir tee install rename mmv zip unzip gzip gunzip bzip2 bunzip2 xz "
    "unxz zstd unzstd lz4 7z 7za 7zr rar unrar split csplit convert magick mogrify montage "
    "ffmpeg sox lame flac optipng oxipng jpegoptim pngquant gifsicle pdftk qpdf img2pdf ocrmypdf "
    "ebook-convert pandoc iconv dos2unix unix2dos mktemp mkfifo patch vim vi nvim nano emacs "
    "code micro helix hx kak gedit kate ed ex at batch xdg-open open notify-send tmux screen "
    "zellij make cmake ninja meson gcc g++ clang clang++ cc c++ rustc javac java kotlinc scalac "
    "node deno bun python python3 ipython pytest tox nox ruby irb php perl lua luajit R Rscript "
    "julia ghc ghci stack cabal swift swiftc zig nim dart flutter elixir iex mix erl rebar3 "
    "ocaml dune tsc webpack vite esbuild rollup parcel babel jest mocha vitest playwright "
    "cypress hugo jekyll mkdocs sphinx-build doxygen latexmk pdflatex xelatex lualatex protoc "
    "vagrant packer gradle mvn ant sbt lein clj bazel buck pants scons waf go cargo rustup "
    "black isort autopep8 yapf ruff prettier eslint gofmt goimports rustfmt clang-format "
    "shfmt stylua ktlint rubocop php-cs-fixer codespell pre-commit direnv asdf mise pyenv "
    "nvm fnm volta rbenv jenv sdk ghcup uv poetry pipenv pipx pip pip3 npm npx yarn pnpm "
    "bunx corepack gem bundle bundler rake rails composer conda mamba micromamba dotnet "
    "nuget opam cpan cpanm luarocks tmuxinator watchexec entr nodemon air reflex ssh mosh sftp "
    "ftp telnet nc netcat ncat socat mail mutt neomutt kill pkill xargs parallel gpg gpg2 age "
    "openssl ssh-keygen ssh-add ssh-copy-id keytool certutil mkcert minisign cosign sqlite3 "
    "psql mysql mariadb mongosh mongo redis-cli duckdb pgcli mycli litecli influx cqlsh "
    "ollama llm aider hf huggingface-cli kaggle yt-dlp youtube-dl gallery-dl wget2 rclone "
    "restic borg duplicity kopia rsnapshot unison syncthing croc magic-wormhole ffsend "
    "transfer.sh termbin nmap masscan zmap nikto gobuster ffuf sqlmap hydra john hashcat "
    "aircrack-ng tcpdump tshark wireshark ngrep iperf iperf3 speedtest-cli fast ab wrk hey "
    "vegeta k6 locust siege ansible ansible-playbook terraform tofu pulumi nix nix-env "
    "nix-shell nix-build guix git hg svn fossil gh glab hub tea jj docker podman buildah skopeo "
    "kubectl helm minikube kind k3d k9s kubectx kubens kustomize skaffold tilt argocd flux "
    "istioctl linkerd aws gcloud az doctl heroku flyctl fly vercel netlify firebase wrangler "
    "gsutil s3cmd b2 mc tmutil crontab systemd-run"
)
SYSTEM = _names(
    "apt apt-get aptitude apt-cache dpkg dnf yum rpm zypper apk pacman yay paru snap flatpak "
    "systemctl service journalctl update-rc.d chkconfig rc-service rc-update hostnamectl "
    "timedatectl localectl loginctl networkctl resolvectl nmcli ip ifconfig route iw ufw "
    "iptables ip6tables nft firewall-cmd update-alternatives grub-install update-grub "
    "efibootmgr mount umount swapon swapoff fsck e2fsck resize2fs tune2fs xfs_repair "
    "lvcreate lvremove lvextend lvresize vgcreate vgremove vgextend pvcreate pvremove lvs vgs "
    "pvs lvdisplay vgdisplay pvdisplay mdadm cryptsetup losetup modprobe sysctl hwclock "
    "rfkill smartctl hdparm badblocks fdisk gdisk sfdisk parted cfdisk zfs zpool btrfs "
    "setenforce getenforce semanage aa-status aa-enforce aa-complain ldconfig depmod "
    "dpkg-reconfigure debconf-set-selections usermod chage chsh chfn gpasswd newusers "
    "setcap getcap chroot sysctl cpupower tlp powertop auditctl ausearch aureport fail2ban-client "
    "virsh virt-install lxc lxd incus multipass qm pct firewalld nginx apache2ctl httpd caddy "
    "certbot postfix dovecot named rndc unbound-control pihole tailscale wg wg-quick zerotier-cli "
    "openvpn nordvpn mullvad expressvpn cups lpadmin lpstat lp cancel lpr lpq lprm"
)
ALWAYS_DANGEROUS = _names(
    "shutdown reboot poweroff halt init telinit mkfs mke2fs mkswap mkdosfs mkntfs mkexfatfs "
    "wipefs shred blkdiscard useradd adduser userdel deluser groupadd addgroup groupdel delgroup "
    "passwd chpasswd visudo insmod rmmod kexec sgdisk nwipe srm wipe secure-delete scrub "
    "flashrom dcfldd dc3dd killall5 pam_tally2 faillock mimikatz secretsdump.py "
    "impacket-secretsdump msfconsole msfvenom"
)

# Each a program's verb (its first plain word) and the level it brings; missing verbs fall to
# the program's default (the table's "" entry).
VERBS: dict[str, dict[str, Level]] = {}


def _verbs(program: str, default: Level, **levels: str) -> None:
    table: dict[str, Level] = {"": default}
    for level, words in levels.items():
        for word in words.split():
            table[word] = level  # type: ignore[assignment]
    VERBS[program] = table


_verbs(
    "git",
    MODERATE,
    safe="status log diff show blame shortlog describe rev-parse ls-files ls-tree ls-remote "
    "cat-file rev-list merge-base grep count-objects name-rev for-each-ref show-ref "
    "check-ignore var version help whatchanged show-branch cherry reflog range-diff "
    "verify-commit verify-tag fsck check-attr check-mailmap annotate difftool instaweb "
    "bugreport column request-pull sizer",
    dangerous="filter-branch filter-repo obliterate gc prune clear clear-soft reset-file "
    "delete-branch delete-merged-branches delete-squashed-branches delete-tag delete-submodule "
    "force-clone undo daemon send-email credential credential-store credential-cache secret",
)
_verbs(
    "docker",
    MODERATE,
    safe="ps images inspect logs top stats diff port version info search history events ls df",
    dangerous="login secret swarm node",
)
_verbs("podman", MODERATE, safe="ps images inspect logs top stats diff port version info search")
_verbs(
    "kubectl",
    MODERATE,
    safe="get describe logs top explain version cluster-info api-resources api-versions diff "
    "events auth wait",
    dangerous="delete drain cordon taint replace certificate",
)
_verbs(
    "helm",
    MODERATE,
    safe="list ls status history show get search template lint version env",
    dangerous="uninstall delete rollback",
)
_verbs(
    "npm",
    MODERATE,
    safe="ls list view info outdated search root prefix bin help docs "
    "home repo bugs explain why query whoami ping doctor fund sbom config audit version",
    dangerous="publish unpublish deprecate owner token access adduser login dist-tag team "
    "org hook star unstar",
)
_verbs(
    "yarn",
    MODERATE,
    safe="list info outdated why audit config licenses versions help",
    dangerous="publish npm",
)
_verbs("pnpm", MODERATE, safe="list ls outdated why audit root bin", dangerous="publish")
_verbs("pip", MODERATE, safe="list show freeze check search help debug inspect index", dangerous="")
_verbs("pip3", MODERATE, safe="list show freeze check search help debug inspect index")
_verbs("pipx", MODERATE, safe="list environment")
_verbs("uv", MODERATE, safe="tree version help", dangerous="publish")
_verbs("poetry", MODERATE, safe="show check about version env search config", dangerous="publish")
_verbs(
    "cargo",
    MODERATE,
    safe="check tree search metadata locate-project pkgid "
    "verify-project version help info report read-manifest",
    dangerous="publish yank owner login logout",
)
_verbs("go", MODERATE, safe="doc env list version vet help bug")
_verbs(
    "gem",
    MODERATE,
    safe="list search info query specification contents environment help dependency which outdated",
    dangerous="push yank owner signin",
)
_verbs("bundle", MODERATE, safe="list show check outdated info platform doctor")
_verbs(
    "composer",
    MODERATE,
    safe="show info search outdated validate licenses why why-not "
    "depends prohibits check-platform-reqs diagnose audit",
)
_verbs("conda", MODERATE, safe="list info search compare doctor notices")
_verbs(
    "dotnet", MODERATE, safe="--info --version --list-sdks --list-runtimes help", dangerous="nuget"
)
_verbs(
    "terraform",
    MODERATE,
    safe="plan show validate fmt output version graph providers state",
    dangerous="apply destroy import taint untaint force-unlock",
)
_verbs(
    "tofu",
    MODERATE,
    safe="plan show validate output version graph providers",
    dangerous="apply destroy import",
)
_verbs("pulumi", MODERATE, safe="preview stack config about whoami", dangerous="up destroy")
_verbs(
    "gh",
    MODERATE,
    safe="status browse search help version",
    dangerous="secret ssh-key gpg-key auth api",
)
_verbs("glab", MODERATE, safe="help version", dangerous="auth api")
_verbs(
    "systemctl",
    DANGEROUS,
    safe="status show list-units list-unit-files list-timers "
    "list-sockets list-dependencies list-jobs list-machines is-active is-enabled is-failed "
    "is-system-running cat get-default --failed help --version show-environment",
)
_verbs("journalctl", SAFE)
_verbs("service", DANGEROUS, safe="--status-all")
_verbs("apt", DANGEROUS, safe="list search show policy depends rdepends changelog help")
_verbs("apt-get", DANGEROUS, safe="check changelog source download")
_verbs("apt-cache", SAFE)
_verbs(
    "dnf",
    DANGEROUS,
    safe="list search info provides repolist repoquery history check-update deplist help",
)
_verbs("yum", DANGEROUS, safe="list search info provides repolist history check-update deplist")
_verbs("snap", DANGEROUS, safe="list find info version help connections services changes")
_verbs("flatpak", DANGEROUS, safe="list search info remotes history ps documents")
_verbs("zypper", DANGEROUS, safe="search se info if list-updates lu repos lr patches packages")
_verbs("apk", DANGEROUS, safe="search info list policy")
_verbs(
    "brew",
    MODERATE,
    safe="list info search outdated deps uses leaves doctor config home --version help",
    dangerous="",
)
_verbs("ip", SAFE, dangerous="")
_verbs("nmcli", DANGEROUS, safe="general monitor help")
_verbs("hostnamectl", DANGEROUS, safe="status")
_verbs("timedatectl", DANGEROUS, safe="status show list-timezones timesync-status")
_verbs("localectl", DANGEROUS, safe="status list-locales list-keymaps list-x11-keymap-layouts")
_verbs(
    "loginctl",
    DANGEROUS,
    safe="list-sessions list-users list-seats show-session "
    "show-user session-status user-status seat-status",
)
_verbs("resolvectl", DANGEROUS, safe="status query statistics dns domain")
_verbs("networkctl", DANGEROUS, safe="list status lldp")
_verbs("ufw", DANGEROUS, safe="status app")
_verbs("firewall-cmd", DANGEROUS)
_verbs("zfs", DANGEROUS, safe="list get")
_verbs("zpool", DANGEROUS, safe="list status iostat get history")
_verbs("btrfs", DANGEROUS)
_verbs(
    "virsh",
    DANGEROUS,
    safe="list dominfo domstate net-list pool-list vol-list version capabilities nodeinfo",
)
_verbs("lxc", DANGEROUS, safe="list info image")
_verbs("incus", DANGEROUS, safe="list info")
_verbs("multipass", MODERATE, safe="list info find version", dangerous="delete purge")
_verbs("tailscale", DANGEROUS, safe="status ip netcheck version whois ping")
_verbs("minikube", MODERATE, safe="status ip version profile service", dangerous="delete")
_verbs("kind", MODERATE, safe="get version", dangerous="delete")
_verbs("k3d", MODERATE, dangerous="")
_verbs("vagrant", MODERATE, safe="status global-status ssh-config box version", dangerous="destroy")
_verbs("ansible", DANGEROUS, safe="--version")
_verbs("ansible-playbook", DANGEROUS)
_verbs("nix", MODERATE, safe="search show-config eval why-depends path-info log", dangerous="")
_verbs("nix-env", MODERATE, safe="-q --query")
_verbs("rustup", MODERATE, safe="show which --version doc")
_verbs("ollama", MODERATE, safe="list ls show ps --version", dangerous="rm push")
_verbs("openssl", SAFE)
_verbs("tmux", MODERATE, safe="ls list-sessions list-windows list-panes list-keys")
_verbs("sqlite3", MODERATE)
_verbs("ssh-keygen", MODERATE)
_verbs(
    "restic", MODERATE, safe="snapshots ls stats check diff find version", dangerous="forget prune"
)
_verbs("borg", MODERATE, safe="list info check diff", dangerous="delete prune compact")
_verbs(
    "rclone",
    MODERATE,
    safe="ls lsd lsl lsf tree size about config listremotes check version",
    dangerous="delete purge deletefile rmdirs sync cleanup",
)

SAFE_CUES = _names(
    "list show display print view search find check get count compare query inspect read "
    "watch monitor describe preview locate look lookup verify validate calculate determine "
    "follow explain output test lint scan analyze analyse trace dump diff measure report "
    "browse tail estimate detect identify extract-info render highlight summarize summarise "
    "page open-in-pager filter select match grep"
)
DANGER_CUES = _names(
    "delete remove erase wipe destroy purge prune shred overwrite drop truncate kill terminate "
    "shutdown reboot poweroff halt uninstall unmount revoke zap nuke obliterate "
    "forcefully force discard expunge unpublish"
)
PROJECT_REMOVALS = _names("remove uninstall delete")
"""Cues that stay moderate for a program working on the project (a package removed from it)."""
ADVERBS = re.compile(r"^(?:\w+ly|also|then|only|just|quickly|and)$")

SECRET_PATH = re.compile(
    r"(?:^|/|~)(?:\.ssh(?:/|$)|id_(?:rsa|dsa|ecdsa|ed25519)|\.gnupg|\.aws/credentials|\.netrc|"
    r"\.pgpass|\.git-credentials|\.docker/config\.json|\.kube/config|shadow$|gshadow$|sudoers|"
    r"\.password-store|\.config/gh/hosts|keyring|\.pypirc|\.npmrc)",
    re.IGNORECASE,
)
SYSTEM_PATH = re.compile(
    r"^(?:/etc|/usr|/boot|/bin|/sbin|/lib|/lib64|/sys|/proc/sys|/var/lib|"
    r"/opt|/root|/dev/(?:sd|nvme|hd|vd|mmcblk|disk|mapper|md|dm-|loop))"
)
EVERYTHING = re.compile(r"^(?:/|/\*|~|~/|~/\*|\$HOME/?|\*|\.\*|\./\*|\.\.)$")


def label(words: list[str], description: str) -> Level | None:
    """The level of the command ``words`` (as the shell splits it), whose example says it does
    ``description``; None for a program the guide has no judgement of."""
    words = _unwrapped(words)
    if not words:
        return None
    program = words[0].rsplit("/", 1)[-1]
    if program in ESCALATE:
        return DANGEROUS
    args = words[1:]
    if any(SECRET_PATH.search(arg) for arg in args):
        return DANGEROUS  # credentials, read or sent, are never routine
    special = SPECIAL.get(program)
    if special is not None:
        return special(args, description)
    return _by_tables(program, args, _cue(description))


def _unwrapped(words: list[str]) -> list[str]:
    words = [word for word in words if word]
    while words and (re.match(r"^[A-Za-z_]\w*=", words[0]) or words[0] in WRAPPERS):
        if words[0] == "timeout" and len(words) > 1:
            words = words[1:]
        words = words[1:]
        while words and words[0].startswith("-"):
            words = words[1:]
        if words and re.fullmatch(r"\d+[smhd]?", words[0]):
            words = words[1:]
    return words


def _cue(description: str) -> str:
    for word in re.sub(r"[\[\]`]", "", description).lower().split():
        if not ADVERBS.match(word):
            return word.strip(",.:;()")
    return ""


def _by_tables(program: str, args: list[str], cue: str) -> Level | None:
    if program in ALWAYS_DANGEROUS or program.startswith(("mkfs", "mkfs.")):
        return DANGEROUS
    if program in VERBS:
        return _by_verb(program, args, cue)
    if program in SYSTEM:
        return SAFE if cue in SAFE_CUES else DANGEROUS
    if program in READERS:
        return MODERATE if _writes_output(args) else SAFE
    if program in NETWORK_READERS:
        return _network(args, cue)
    if program in WRITERS:
        return _writer(args, cue)
    return None


def _by_verb(program: str, args: list[str], cue: str) -> Level:
    table = VERBS[program]
    verb = next((arg for arg in args if not arg.startswith("-")), "")
    flag_verb = next((arg for arg in args if arg.startswith("-") and arg in table), None)
    level = table.get(verb) or (table.get(flag_verb) if flag_verb else None)
    if level == SAFE and _writes_output(args):
        level = MODERATE
    if level is None:
        level = table[""]
        if level == MODERATE and cue in SAFE_CUES:
            level = SAFE
        elif level == MODERATE and cue in DANGER_CUES and cue not in PROJECT_REMOVALS:
            level = DANGEROUS
    if program == "git":
        return _git(args, level)
    if level == SAFE and _changes_despite_verb(verb, args):
        return MODERATE
    if program in ("docker", "podman"):
        return _container(args, level, cue)
    if program == "ip":
        return (
            SAFE if not set(args) & _names("add del delete set flush change replace") else DANGEROUS
        )
    if level == MODERATE and any(_is_global(arg) for arg in args) and program in _GLOBAL_AWARE:
        return DANGEROUS  # installs for the whole system
    return level


def _changes_despite_verb(verb: str, args: list[str]) -> bool:
    """``poetry version minor``, ``npm config set x y``: a reading verb made to write."""
    plain = [arg for arg in args if not arg.startswith("-")]
    if verb == "version":
        return len(plain) > 1 or "--bump" in args
    if verb == "config":
        return bool(set(plain) & _names("set delete rm unset edit add remove --add --unset"))
    return False


def _cloud(args: list[str], description: str) -> Level:
    """A cloud's CLI (``aws ecr delete-repository``): its action words say what it does."""
    plain = [part for arg in args if not arg.startswith("-") for part in arg.lower().split(":")]
    for word in plain:
        if word.startswith(_CLOUD_DANGEROUS):
            return DANGEROUS
    if "--help" in args or "help" in plain[:1] or "version" in plain:
        return SAFE
    if any(word.startswith(_CLOUD_SAFE) for word in plain):
        return SAFE
    return MODERATE


_CLOUD_DANGEROUS = (
    "delete",
    "remove",
    "rm",
    "rb",
    "purge",
    "destroy",
    "terminate",
    "drop",
    "deregister",
    "revoke",
    "detach",
    "disable",
    "reset",
    "wipe",
)
_CLOUD_SAFE = (
    "list",
    "ls",
    "describe",
    "get",
    "show",
    "info",
    "query",
    "lookup",
    "status",
    "whoami",
    "account",
    "check",
    "validate",
    "logs",
    "tail",
    "search",
    "estimate",
)
_GLOBAL_AWARE = _names("npm pnpm yarn pip pip3 gem composer")


def _is_global(arg: str) -> bool:
    return arg in ("-g", "--global", "--system", "--break-system-packages")


def _git(args: list[str], level: Level) -> Level:
    joined = " ".join(args)
    if re.search(r"(?:^|\s)(?:push)\b.*(?:\s--force\b|\s-f\b|\s\+\S)", joined):
        return DANGEROUS
    if re.search(
        r"\breset\b.*--hard|\bclean\b.*-\w*f|\bbranch\b.*\s-D\b|\bcheckout\b.*\s--\s|"
        r"\bstash\s+(?:drop|clear)|\breflog\s+(?:expire|delete)|\bupdate-ref\s+-d|"
        r"\btag\s+(?:-d|--delete)|\bpush\b.*(?:--delete|\s:\S)|\brestore\b(?!.*--staged)|"
        r"\bworktree\s+remove\b.*--force|\bsubmodule\b.*deinit.*-f",
        joined,
    ):
        return DANGEROUS
    if re.search(
        r"\bbranch\b(?:\s+(?:-a|-r|--list|-l|-v|-vv|--all|--merged|--no-merged|"
        r"--show-current|--contains)\b|\s*$)",
        joined,
    ):
        return SAFE
    if re.search(
        r"\b(?:tag|stash|remote|config|worktree|notes|submodule)\s*$|"
        r"\btag\s+(?:-l|--list)|\bstash\s+(?:list|show)|\bremote\s+(?:-v|show|get-url)|"
        r"\bconfig\s+(?:--get|--list|-l|--show-origin)|\bworktree\s+list|"
        r"\bsubmodule\s+status|\bconfig\b(?:\s+--\w+)*\s+[\w.]+\s*$",
        joined,
    ):
        return SAFE
    return level


def _container(args: list[str], level: Level, cue: str) -> Level:
    joined = " ".join(args)
    if re.search(
        r"\b(?:system|volume|image|container|network|builder|buildx)\s+prune\b|"
        r"\bvolume\s+(?:rm|remove)\b|--privileged|-v\s+/:|--volume[= ]/:|"
        r"--pid[= ]host|--net(?:work)?[= ]host.*--privileged|\brmi\b.*-f|"
        r"\brm\b.*(?:-f|--force|-v|--volumes)\b",
        joined,
    ):
        return DANGEROUS
    if re.search(
        r"\b(?:container|image|volume|network|context|buildx|compose)\s+"
        r"(?:ls|list|inspect|ps|logs|top|history|config|version|du|stats)\b",
        joined,
    ):
        return SAFE
    return level


def _writes_output(args: list[str]) -> bool:
    return any(
        arg in ("-o", "-out", "--output", "-w", "--write", "-i", "--in-place")
        or arg.startswith(("--output=", "-o="))
        or arg.startswith(">")
        for arg in args
    )


def _network(args: list[str], cue: str) -> Level:
    joined = " ".join(args)
    if re.search(
        r"(?:^|\s)(?:-d|--data\S*|-F|--form|-T|--upload-file|--post-file|--post-data|"
        r"--body-file|--json)(?:\s|=|$)|@\S|(?:^|\s)-X\s*(?:POST|PUT|PATCH|DELETE)|"
        r"--method[= ](?:POST|PUT|PATCH|DELETE)|\s(?:POST|PUT|PATCH|DELETE)\s",
        joined,
    ):
        return DANGEROUS  # sends local data, or changes a remote resource
    return MODERATE


def _writer(args: list[str], cue: str) -> Level:
    if cue in DANGER_CUES and cue not in PROJECT_REMOVALS:
        return DANGEROUS
    if cue in SAFE_CUES and not _writes_output(args):
        return SAFE
    if any(SYSTEM_PATH.match(arg) for arg in args if not arg.startswith("-")):
        return DANGEROUS  # writes where the system keeps its own files
    return MODERATE


def _rm(args: list[str], description: str) -> Level:
    flags = "".join(arg[1:] for arg in args if re.fullmatch(r"-[A-Za-z]+", arg))
    if "r" in flags.lower() or "--recursive" in args or "f" in flags or "--force" in args:
        return DANGEROUS
    targets = [arg for arg in args if not arg.startswith("-")]
    if any(EVERYTHING.match(t) or SYSTEM_PATH.match(t) or "*" in t for t in targets):
        return DANGEROUS
    return MODERATE


def _find(args: list[str], description: str) -> Level:
    if any(arg in ("-delete", "-exec", "-execdir", "-ok", "-fprint", "-fls") for arg in args):
        joined = " ".join(args)
        if "-delete" in args or re.search(r"-exec(?:dir)?\s+(?:rm|shred|mv|chmod|chown)\b", joined):
            return DANGEROUS
        return MODERATE
    return SAFE


def _sed(args: list[str], description: str) -> Level:
    inplace = any(re.fullmatch(r"-[A-Za-z]*i\S*|--in-place\S*", arg) for arg in args)
    if not inplace:
        return SAFE
    return DANGEROUS if any(SYSTEM_PATH.match(a) for a in args) else MODERATE


def _permissions(args: list[str], description: str) -> Level:
    recursive = any(re.fullmatch(r"-[A-Za-z]*R[A-Za-z]*|--recursive", arg) for arg in args)
    targets = [arg for arg in args[1:] if not arg.startswith("-")]
    setuid = any(re.search(r"(?:^|[+,])[ug]?\+?s|^[4267]\d{3}$|^\+s", arg) for arg in args)
    if recursive or setuid or any(SYSTEM_PATH.match(t) or EVERYTHING.match(t) for t in targets):
        return DANGEROUS
    if any(arg.startswith("root") for arg in args):
        return DANGEROUS
    return MODERATE


def _tar(args: list[str], description: str) -> Level:
    first = args[0] if args else ""
    mode = first.lstrip("-") if not first.startswith("--") else ""
    if "t" in mode or "--list" in args:
        return SAFE
    if any(arg in ("-C", "--directory") for arg in args):
        target = args[args.index("-C" if "-C" in args else "--directory") + 1 :][:1]
        if target and (SYSTEM_PATH.match(target[0]) or target[0] == "/"):
            return DANGEROUS
    return MODERATE


def _dd(args: list[str], description: str) -> Level:
    out = [arg[3:] for arg in args if arg.startswith("of=")]
    if any(o.startswith("/dev/") and o not in ("/dev/null", "/dev/stdout") for o in out):
        return DANGEROUS
    return MODERATE if out else SAFE


def _rsync(args: list[str], description: str) -> Level:
    if any(arg.startswith(("--delete", "--remove-source-files")) for arg in args):
        return DANGEROUS
    targets = [arg for arg in args if not arg.startswith("-")]
    if targets and re.match(r"^[\w.-]+@?[\w.-]*:|^rsync://", targets[-1]):
        return DANGEROUS  # sends local files to another machine
    return MODERATE


def _scp(args: list[str], description: str) -> Level:
    targets = [arg for arg in args if not arg.startswith("-")]
    if targets and re.match(r"^[\w.-]+@?[\w.-]*:", targets[-1]):
        return DANGEROUS
    return MODERATE


def _kill(args: list[str], description: str) -> Level:
    if args[:1] in (["-l"], ["-L"], ["--list"]):
        return SAFE
    if any(arg in ("-1", "1") for arg in args[-1:]) or ("-9" in args and "-1" in args):
        return DANGEROUS
    return MODERATE


def _crontab(args: list[str], description: str) -> Level:
    if "-l" in args:
        return SAFE
    return DANGEROUS if "-r" in args else MODERATE


def _dmesg(args: list[str], description: str) -> Level:
    return DANGEROUS if any(a in ("-c", "-C", "--clear", "--read-clear") for a in args) else SAFE


def _truncate(args: list[str], description: str) -> Level:
    return DANGEROUS if any(a in ("-s", "--size") for a in args) else MODERATE


def _awk(args: list[str], description: str) -> Level:
    joined = " ".join(args)
    return MODERATE if re.search(r"system\(|-i\s+inplace|print\s*>", joined) else SAFE


def _make(args: list[str], description: str) -> Level:
    if "install" in args or "uninstall" in args:
        return DANGEROUS  # into the system's folders
    if "-n" in args or "--dry-run" in args or "-p" in args:
        return SAFE
    return MODERATE


def _printenv(args: list[str], description: str) -> Level:
    return MODERATE if not args or args[0].startswith("-") else SAFE


def _mv_cp(args: list[str], description: str) -> Level:
    targets = [arg for arg in args if not arg.startswith("-")]
    if any(SYSTEM_PATH.match(t) or t == "/dev/null" for t in targets):
        return DANGEROUS
    return MODERATE


def _pkill(args: list[str], description: str) -> Level:
    return DANGEROUS if "-9" in args or ("--signal" in args and "9" in args) else MODERATE


def _journalctl(args: list[str], description: str) -> Level:
    if any(a.startswith(("--vacuum", "--rotate", "--flush", "--relinquish")) for a in args):
        return DANGEROUS
    return SAFE


def _python(args: list[str], description: str) -> Level:
    if "-m" in args:
        module = args[args.index("-m") + 1 :][:1]
        if module and module[0] == "http.server":
            return DANGEROUS if "--bind" not in args and "-b" not in args else MODERATE
        if module and module[0] in ("json.tool", "pydoc", "this", "timeit", "site", "tokenize"):
            return SAFE
    if "--version" in args or "-V" in args:
        return SAFE
    return MODERATE


def _dpkg(args: list[str], description: str) -> Level:
    safe = (
        "-l",
        "--list",
        "-L",
        "--listfiles",
        "-s",
        "--status",
        "-S",
        "--search",
        "--get-selections",
        "-c",
        "--contents",
        "-I",
        "--info",
        "--print-architecture",
    )
    return SAFE if any(a in safe for a in args) else DANGEROUS


def _rpm(args: list[str], description: str) -> Level:
    return (
        SAFE if any(re.fullmatch(r"-q\w*|--query|-V\w*|--verify", a) for a in args) else DANGEROUS
    )


def _pacman(args: list[str], description: str) -> Level:
    flags = "".join(a for a in args if a.startswith("-") and not a.startswith("--"))
    if re.search(r"-[A-Za-z]*Q|-Ss|-Si|-Sl|-Sg|-F", flags) and "R" not in flags:
        return SAFE
    return DANGEROUS


SPECIAL: dict[str, Callable[[list[str], str], Level]] = {
    "rm": _rm, "find": _find, "sed": _sed, "chmod": _permissions, "chown": _permissions,
    "chgrp": _permissions, "chattr": lambda a, d: DANGEROUS, "setfacl": _permissions,
    "tar": _tar, "dd": _dd, "rsync": _rsync, "scp": _scp, "kill": _kill, "crontab": _crontab,
    "dmesg": _dmesg, "truncate": _truncate, "awk": _awk, "gawk": _awk, "mawk": _awk,
    "make": _make, "printenv": _printenv, "mv": _mv_cp, "cp": _mv_cp, "pkill": _pkill,
    "killall": lambda a, d: DANGEROUS, "journalctl": _journalctl, "python": _python,
    "python3": _python, "dpkg": _dpkg, "rpm": _rpm, "pacman": _pacman, "yay": _pacman,
    "paru": _pacman, "aws": _cloud, "az": _cloud, "gcloud": _cloud, "doctl": _cloud,
    "gsutil": _cloud, "heroku": _cloud, "flyctl": _cloud, "fly": _cloud, "vercel": _cloud,
    "netlify": _cloud, "firebase": _cloud, "linode-cli": _cloud, "hcloud": _cloud,
    "ibmcloud": _cloud, "oci": _cloud, "exo": _cloud, "openstack": _cloud,
}  # fmt: skip
