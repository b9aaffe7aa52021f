//go:build windows

package stdio

import "os"

var terminate = os.Kill
