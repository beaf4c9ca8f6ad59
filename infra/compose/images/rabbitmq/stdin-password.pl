# Applied to RabbitMQ 4.0's sbin/rabbitmqctl by the Dockerfile. That script lets the CLI read standard
# input only when it counts exactly `change_password USER` in its arguments, so a call with options
# (`rabbitmqctl --silent -n NODE change_password USER`, password on stdin, as rabbitmq-setup makes) runs
# with -noinput and waits forever. This counts the positional arguments alone, options and their values
# left out, which is what the check means.
s{^(\. "\$\{0%/\*\}"/rabbitmq-env\n)}{$1
orderflow_positional_count() {
    _n=0
    _skip=0
    for _a in "\$@"; do
        if [ "\$_skip" = 1 ]; then _skip=0; continue; fi
        case "\$_a" in
            -n|--node|-t|--timeout|-p|--vhost|--formatter|--erlang-cookie) _skip=1 ;;
            -*) ;;
            *) _n=\$((_n + 1)) ;;
        esac
    done
    echo "\$_n"
}
}m or die "rabbitmq-env line not found\n";
s{(\*change_password\*\)\n\s+maybe_noinput='input'\n\s+if \[ )"\$#"( -gt 2 \])}{$1"\$(orderflow_positional_count "\$@")"$2} or die "change_password branch not found\n";
