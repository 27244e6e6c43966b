# SPDX-License-Identifier: Apache-2.0
# An old cluster's CPU pod (create) and a DELETE: allowed unchanged.
.patch == null and .response.allowed == true
