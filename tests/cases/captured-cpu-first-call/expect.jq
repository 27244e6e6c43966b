# SPDX-License-Identifier: Apache-2.0
# Not a GPU pod: allowed, no patch, no warnings.
.patch == null and .response.warnings == null and .response.allowed == true
