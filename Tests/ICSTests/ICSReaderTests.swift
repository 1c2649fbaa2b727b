import XCTest
@testable import Importers
import Pipeline
