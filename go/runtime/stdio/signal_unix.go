//go:build !windows

package stdio

import "syscall"

var terminate = syscall.SIGTERM
