# SPDX-License-Identifier: Apache-2.0
# A mirror pod (annotation kubernetes.io/config.mirror) is left alone: no patch, no warning.
.patch == null and .response.allowed == true and (.response.warnings // [] | length == 0)
