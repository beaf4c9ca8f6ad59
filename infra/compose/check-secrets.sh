#!/usr/bin/env bash
# docker compose: the secrets of .env go unescaped into amqp://, postgres:// and redis:// URLs (compose's
# interpolation cannot percent-encode) and onto command lines. A password with `@ / : #` would otherwise
# surface later as an unrelated error (a wrong host, a refused login); this says which variable is wrong.
#
#   bash check-secrets.sh NAME...            checks each named variable; exit 1 naming every bad one
#   source check-secrets.sh; require_secrets NAME...   the same from another script (exits on failure)

SECRET_MIN_LENGTH=16
SECRET_MAX_LENGTH=128
SECRET_RULE="${SECRET_MIN_LENGTH}-${SECRET_MAX_LENGTH} characters from A-Z a-z 0-9 . _ ~ -, not starting with '-'"

# Prints what is wrong with the variable called $1 (never its value), nothing when it is fine.
secret_problem() {
  local name="$1"
  if [[ ! "$name" =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]]; then
    echo "\"$name\" is not a variable name"
    return
  fi
  local value="${!name-}"
  if [[ -z "$value" ]]; then
    echo "$name is empty or not set"
  elif [[ "$value" == -* ]]; then
    echo "$name starts with '-' (a command would read it as an option)"
  elif [[ ! "$value" =~ ^[A-Za-z0-9._~-]+$ ]]; then
    echo "$name has a character other than A-Z a-z 0-9 . _ ~ - (it goes into URLs unescaped)"
  elif ((${#value} < SECRET_MIN_LENGTH || ${#value} > SECRET_MAX_LENGTH)); then
    echo "$name is ${#value} characters long"
  fi
}

# Returns 1 after printing one line per bad variable to stderr, and how to make a good one.
check_secrets() {
  local name problem bad=0
  for name in "$@"; do
    problem="$(secret_problem "$name")"
    if [[ -n "$problem" ]]; then
      echo "check-secrets: $problem" >&2
      bad=1
    fi
  done
  if ((bad)); then
    echo "check-secrets: each secret must be $SECRET_RULE; generate one with: openssl rand -hex 24 (see .env.example)" >&2
    return 1
  fi
}

require_secrets() {
  check_secrets "$@" || exit 1
}

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
  set -euo pipefail
  if (($# == 0)); then
    echo "usage: check-secrets.sh NAME... (the environment variables to check)" >&2
    exit 2
  fi
  require_secrets "$@"
  echo "check-secrets: $# secrets ok"
fi
